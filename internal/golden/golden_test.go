package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.errs = append(r.errs, f) }
func (r *recorder) Fatal(a ...any)            { r.errs = append(r.errs, "fatal") }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nb\n"), true) // -update writes it, folder and all
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" || len(r.errs) > 0 {
		t.Fatalf("update wrote %q (%v), errors %v", b, err, r.errs)
	}
	Check(r, path, []byte("a\nb\n"), false)
	if len(r.errs) > 0 {
		t.Fatalf("the same output failed: %v", r.errs)
	}
	Check(r, path, []byte("a\nc\n"), false)
	if len(r.errs) != 1 {
		t.Fatalf("a different output: %d failures, want 1", len(r.errs))
	}
	Check(r, filepath.Join(t.TempDir(), "none"), nil, false)
	if len(r.errs) != 2 {
		t.Fatalf("a missing file: %d failures, want 2", len(r.errs))
	}
}

func TestFirstDiff(t *testing.T) {
	if d := FirstDiff("a\nb", "a\nb"); d != "" {
		t.Errorf("same text: %q", d)
	}
	if d := FirstDiff("a\nb", "a\nc"); !strings.HasPrefix(d, "line 2:") {
		t.Errorf("second line differs: %q", d)
	}
	if d := FirstDiff("a", "a\nb"); !strings.HasPrefix(d, "line 2:") {
		t.Errorf("a line more: %q", d)
	}
}
