package bpe

import (
	"strings"
	"testing"
)

// FuzzOpen: any file either fails to open or gives a table whose lookups
// and merges neither panic nor loop, and count what they split.
func FuzzOpen(f *testing.F) {
	data, err := Build(tiny)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add(string(data[:headerLen]))
	f.Add(strings.Replace(string(data), "abc", "abd", 1))
	f.Fuzz(func(t *testing.T, data string) {
		table, err := Open(data)
		if err != nil {
			return
		}
		for rank := range min(table.Len(), 64) {
			table.Token(rank)
		}
		for _, s := range append(tiny, "abcd", "aaaaa", "xyzd", strings.Repeat("ab", 60)) {
			table.Rank(s)
			if n, bounds := table.Count(s), table.Split(s); n != len(bounds)-1 {
				t.Fatalf("Count(%q) = %d, Split %v", s, n, bounds)
			}
		}
	})
}
