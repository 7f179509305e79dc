package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/iostreams"
)

// TestFlagsUTF8: a flag value, an environment value or an argument that is
// not valid UTF-8 is a usage error naming it, and nothing is stored.
func TestFlagsUTF8(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{name: "-c", args: []string{"append", "-c", "a\xffb", "hi"}, want: "--conversation: invalid UTF-8 at byte 2"},
		{name: "--aux", args: []string{"append", "-c", "x", "--aux", "k=\"\xc3\"", "hi"}, want: "--aux: invalid UTF-8 at byte 4"},
		{name: "argument", args: []string{"append", "-c", "x", "fine", "caf\xe9"}, want: "argument 2: invalid UTF-8 at byte 4"},
		{name: "environment", args: []string{"export", "-c", "x", "--incremental"}, env: map[string]string{"CONVO_SINK": "s\xff"},
			want: "--sink (from the environment or the config file): invalid UTF-8 at byte 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "convo.db")
			t.Setenv("CONVO_DB", db)
			t.Setenv("XDG_CONFIG_HOME", dir)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			io, out, errOut := iostreams.Test("")
			if code := Run(context.Background(), tc.args, io); code != exitcode.Usage {
				t.Errorf("exit %d, want %d; stderr %s", code, exitcode.Usage, errOut)
			}
			if !strings.Contains(errOut.String(), tc.want) || out.Len() > 0 {
				t.Errorf("stderr %q, want %q; stdout %q", errOut, tc.want, out)
			}
			if _, err := os.Stat(db); err == nil {
				t.Error("the store was created")
			}
		})
	}
}

// TestFileFlagsAnyBytes: a file name may be any bytes on Unix; only what can
// reach a record or an output is checked.
func TestFileFlagsAnyBytes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	io, _, errOut := iostreams.Test("")
	if code := Run(context.Background(), []string{"get", "--db", filepath.Join(dir, "st\xffre.db"), "-c", "x"}, io); code != exitcode.NotFound {
		t.Errorf("exit %d, want %d; stderr %s", code, exitcode.NotFound, errOut)
	}
}
