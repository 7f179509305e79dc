package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// A new store, its -wal and -shm files and a new directory are private to
// their owner, whatever the umask lets through; an existing file keeps its
// mode.
func TestOpenCreatesPrivateFiles(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "convo")
	path := filepath.Join(dir, "convo.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(context.Background(), "c", transcript.NewIDs(), feed(msg("user", "hi"))); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600}
	for name, mode := range want {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %o, want %o", filepath.Base(name), got, mode)
		}
	}
	s.Close()

	shared := filepath.Join(t.TempDir(), "shared.db")
	if err := os.WriteFile(shared, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	s, err = Open(context.Background(), shared)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if fi, _ := os.Stat(shared); fi.Mode().Perm() != 0o640 {
		t.Errorf("an existing store's mode became %o, want 640 kept", fi.Mode().Perm())
	}
}

type codedError int

func (e codedError) Error() string { return "sqlite error" }
func (e codedError) Code() int     { return int(e) }

func TestBusy(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{codedError(5), true},
		{fmt.Errorf("open: %w", codedError(517)), true}, // SQLITE_BUSY_SNAPSHOT
		{codedError(1), false},
		{errors.New("database is locked"), false}, // by type, never by text
		{nil, false},
	} {
		if got := busy(tt.err); got != tt.want {
			t.Errorf("busy(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
