package show

import "testing"

// A word a POSIX shell reads back as it was, and a terminal shows without
// obeying it.
func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"notes.md":       "notes.md",
		"":               "''",
		"my notes.md":    "'my notes.md'",
		"it's":           `'it'\''s'`,
		"a\x1b[31mred":   `'a\x1b[31mred'`,
		"dir/v1.2_x@a=b": "dir/v1.2_x@a=b",
	} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %q, want %q", in, got, want)
		}
	}
}
