package importer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The PATH arguments: a file as given, a directory's files of the format,
// - for stdin, the bytes of them all; a missing path named.
func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	given := write("given.txt", "12345")             // taken as given, whatever its name
	found := write("sub/a/conversations.json", "[]") // the format's file, found by the walk
	write("sub/a/notes.txt", "not the format's")
	f, _ := Lookup("chatgpt")
	for _, tc := range []struct {
		name  string
		paths []string
		want  Inputs
		err   string
	}{
		{"file", []string{given}, Inputs{Files: []string{given}, Size: 5}, ""},
		{"directory", []string{filepath.Join(dir, "sub")}, Inputs{Files: []string{found}, Size: 2}, ""},
		{"stdin and a file", []string{"-", given}, Inputs{Files: []string{given}, Stdin: true, Size: 5}, ""},
		{"stdin alone", []string{"-"}, Inputs{Stdin: true}, ""},
		{"missing", []string{given, filepath.Join(dir, "nope")}, Inputs{}, filepath.Join(dir, "nope") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadPaths(f, tc.paths)
			if tc.err != "" {
				var missing *MissingPathError
				if err == nil || err.Error() != tc.err || !errors.As(err, &missing) || !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("err %v, want a MissingPathError %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Files, tc.want.Files) || got.Stdin != tc.want.Stdin || got.Size != tc.want.Size {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
