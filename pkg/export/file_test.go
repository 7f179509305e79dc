package export_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/export"
)

func TestFileCutsTornLastLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // a fragment longer than one read
	tests := []struct {
		name, before string
		torn         int64
	}{
		{"new file", "", 0},
		{"whole lines", "{\"a\":1}\n", 0},
		{"torn line", "{\"a\":1}\n{\"b\":", 5},
		{"only a fragment", "{\"b\":", 5},
		{"long fragment", "{\"a\":1}\n" + long, int64(len(long))},
		{"long line then fragment", long + "\n{\"b\"", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.jsonl")
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := export.OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f.Torn != tt.torn {
				t.Errorf("cut %d bytes, want %d", f.Torn, tt.torn)
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
			want := tt.before[:int64(len(tt.before))-tt.torn] + "{\"c\":3}\n"
			if string(got) != want {
				t.Errorf("file holds %.60q…, want %.60q…", got, want)
			}
		})
	}
}

func TestFileCreatedPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	f, err := export.OpenFile(path)
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
