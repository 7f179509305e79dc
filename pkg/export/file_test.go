package export_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/export"
)

// writeFile writes body to a new file under dir and returns its path.
func writeFile(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "log.jsonl")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stateOf is what an export records before its first write to path: the
// file as it stands, an export writing past it.
func stateOf(t *testing.T, path string) export.FileState {
	t.Helper()
	f, err := export.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.State()
	if err != nil {
		t.Fatal(err)
	}
	st.Writing = true
	return st
}

func known(st export.FileState) func() (export.FileState, bool, error) {
	return func() (export.FileState, bool, error) { return st, true, nil }
}

// appendTo appends s to path as a killed export would have.
func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// A torn last line an interrupted export of ours left (the store says an
// export was writing past the length it had) is cut off, however long, and
// only it: whole lines it wrote stay.
func TestFileCutsOurTornLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // a fragment longer than one read
	tests := []struct{ name, before, written, torn string }{
		{"new file", "", "", "{\"b\":"},
		{"whole lines", "{\"a\":1}\n", "", "{\"b\":"},
		{"lines written before the kill", "{\"a\":1}\n", "{\"a\":2}\n{\"a\":3}\n", "{\"b\":"},
		{"long fragment", "{\"a\":1}\n", "", long},
		{"long line then fragment", long + "\n", "", "{\"b\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), tt.before)
			st := stateOf(t, path)
			appendTo(t, path, tt.written+tt.torn)
			f, err := export.OpenFile(path, known(st))
			if err != nil {
				t.Fatal(err)
			}
			if f.Torn != int64(len(tt.torn)) {
				t.Errorf("cut %d bytes, want %d", f.Torn, len(tt.torn))
			}
			if _, err := f.Write([]byte("{\"c\":3}\n")); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Errorf("a second Close: %v", err)
			}
			got, _ := os.ReadFile(path)
			if want := tt.before + tt.written + "{\"c\":3}\n"; string(got) != want {
				t.Errorf("file holds %.60q…, want %.60q…", got, want)
			}
		})
	}
}

// A file that does not end in a newline is refused, unchanged, unless an
// interrupted export of ours left it so: nothing recorded, an export that
// completed, a record of another file, a tail that starts before the
// recorded length, or a file rewritten since.
func TestFileRefusesForeignTail(t *testing.T) {
	binary := make([]byte, 998)
	for i := range binary {
		binary[i] = byte(i*7 + 1)
		if binary[i] == '\n' {
			binary[i] = 0
		}
	}
	tests := []struct {
		name, clean, tail string
		// recorded turns what an export writing past clean would have
		// recorded into what the store holds; nil: the store is not asked.
		recorded func(st export.FileState) (export.FileState, bool)
	}{
		{"someone's last line", "keep\n", "important", nil},
		{"a binary file", "", string(binary), nil},
		{"nothing recorded", "{\"a\":1}\n", "{\"b\":", func(st export.FileState) (export.FileState, bool) { return st, false }},
		{"the last export completed", "{\"a\":1}\n", "{\"b\":", func(st export.FileState) (export.FileState, bool) {
			st.Writing = false
			return st, true
		}},
		{"another file", "{\"a\":1}\n", "{\"b\":", func(st export.FileState) (export.FileState, bool) {
			st.Inode++
			return st, true
		}},
		{"the tail starts before the recorded length", "{\"a\":1}\n", "important", func(st export.FileState) (export.FileState, bool) {
			st.Size++
			return st, true
		}},
		{"rewritten since", "{\"a\":1}\n{\"b\":2}\n", "important", func(st export.FileState) (export.FileState, bool) {
			st.Size = 5 // no newline before it
			return st, true
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), tt.clean)
			st := stateOf(t, path)
			appendTo(t, path, tt.tail)
			var recorded func() (export.FileState, bool, error)
			if tt.recorded != nil {
				recorded = func() (export.FileState, bool, error) {
					st, ok := tt.recorded(st)
					return st, ok, nil
				}
			}
			f, err := export.OpenFile(path, recorded)
			if !errors.Is(err, export.ErrForeignTail) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v, want ErrForeignTail naming %s", err, path)
			}
			if f != nil {
				f.Close()
			}
			if got, _ := os.ReadFile(path); string(got) != tt.clean+tt.tail {
				t.Errorf("the file changed: %.60q", got)
			}
		})
	}
}

func TestFileCreatedPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	f, err := export.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("mode %o, want 600", mode)
	}
}
