//go:build unix

package export_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/convo-cli/convo/pkg/export"
)

// A symbolic link is never followed, dangling or not; a directory, a FIFO
// and a device are refused, naming the path, without waiting on the FIFO.
func TestFileRefusesWhatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "keep\n")
	link := filepath.Join(dir, "link")
	dangling := filepath.Join(dir, "dangling")
	fifo := filepath.Join(dir, "fifo")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "new"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want error
	}{
		{link, export.ErrSymlink},
		{dangling, export.ErrSymlink},
		{dir, export.ErrNotRegular},
		{fifo, export.ErrNotRegular},
		{os.DevNull, export.ErrNotRegular},
	} {
		f, err := export.OpenFile(tt.path, nil)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("%s: error %v, want %v naming the path", tt.path, err, tt.want)
		}
		if f != nil {
			f.Close()
		}
	}
	if got, _ := os.ReadFile(target); string(got) != "keep\n" {
		t.Errorf("the link's target changed: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
}
