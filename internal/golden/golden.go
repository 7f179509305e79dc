// Package golden keeps a test's expected output in a file under testdata.
// Check compares what the test got with the file; run with -update (each
// test package's flag), it writes the file instead, so a meant change is
// one command and a diff to review.
package golden

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Check fails t when got differs from the file at path, naming the file,
// the first line that differs and what was got. With update it writes got
// to path, making its folder, and checks nothing.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("differs from %s (go test -update rewrites it if the change is meant): %s\n--- got\n%s", path, FirstDiff(string(want), string(got)), got)
	}
}

// FirstDiff names the first line where got differs from want, and both
// versions of it; "" when they are the same.
func FirstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\nwant " + a + "\ngot  " + b
		}
	}
	return ""
}
