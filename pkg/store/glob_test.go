package store

import "testing"

func TestCheckGlob(t *testing.T) {
	for _, tc := range []struct {
		glob string
		want string // "" : accepted
	}{
		{"", ""},
		{"support-*", ""},
		{"a?c", ""},
		{"[abc]*", ""},
		{"[]]x", ""},  // the first ] is a member
		{"[^]]x", ""}, // so is the one after ^
		{"a[b]c[d]", ""},
		{"[abc", "malformed glob: the [ at byte 1 is never closed by ] (a set: [abc], [^abc])"},
		{"ab[]", "malformed glob: the [ at byte 3 is never closed by ] (a set: [abc], [^abc])"},
		{"[a]x[^", "malformed glob: the [ at byte 5 is never closed by ] (a set: [abc], [^abc])"},
	} {
		err := CheckGlob(tc.glob)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckGlob(%q) = %q, want %q", tc.glob, got, tc.want)
		}
	}
}
