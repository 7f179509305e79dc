package bpe

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// tiny is a vocabulary small enough to follow the merges by hand: the
// single bytes a-d, then pairs and longer tokens by rank.
var tiny = []string{"a", "b", "c", "d", "ab", "bc", "abc", "cd", "aa", "", "xyz", "aaaa"}

func openTiny(t *testing.T) *Table {
	t.Helper()
	data, err := Build(tiny)
	if err != nil {
		t.Fatal(err)
	}
	table, err := Open(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return table
}

func TestMerge(t *testing.T) {
	table := openTiny(t)
	for _, tc := range []struct {
		piece  string
		bounds []int
	}{
		{"", []int{0}},
		{"a", []int{0, 1}},
		{"abc", []int{0, 3}},     // a token: looked up whole
		{"abcd", []int{0, 3, 4}}, // ab (4) first, then abc (6); abcd is none
		{"bcd", []int{0, 2, 3}},  // bc (5) before cd (7)
		{"dcd", []int{0, 1, 3}},
		{"aaa", []int{0, 2, 3}},   // equal ranks: the leftmost pair merges
		{"aaaa", []int{0, 4}},     // a token
		{"aaaaa", []int{0, 4, 5}}, // aa, aa, then aaaa (11)
		{"ax", []int{0, 1, 2}},    // x is no token: a part all the same
		{"xyz", []int{0, 3}},      // a token no merge reaches
		{"xyzd", []int{0, 1, 2, 3, 4}},
		{"\xff\xfe", []int{0, 1, 2}},
	} {
		if got := table.Split(tc.piece); !slices.Equal(got, tc.bounds) {
			t.Errorf("Split(%q) = %v, want %v", tc.piece, got, tc.bounds)
		}
		if got := table.Count(tc.piece); got != len(tc.bounds)-1 {
			t.Errorf("Count(%q) = %d, want %d", tc.piece, got, len(tc.bounds)-1)
		}
	}
}

// TestHeapMatchesScan: the two merges give the same parts, on random
// pieces of the tiny alphabet (where merges chain and tie).
func TestHeapMatchesScan(t *testing.T) {
	table := openTiny(t)
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range 1 + r.IntN(150) {
			b.WriteByte("abcdxyz"[r.IntN(7)])
		}
		piece := b.String()
		var scan []int
		for _, p := range table.mergeScan(piece) {
			scan = append(scan, int(p.offset))
		}
		if heap := table.mergeHeap(piece); !slices.Equal(heap, scan) {
			t.Fatalf("%q: heap %v, scan %v", piece, heap, scan)
		}
	}
}

func TestRankAndToken(t *testing.T) {
	table := openTiny(t)
	if table.Len() != len(tiny) {
		t.Fatalf("Len() = %d, want %d", table.Len(), len(tiny))
	}
	for rank, token := range tiny {
		if got := table.Token(rank); got != token {
			t.Errorf("Token(%d) = %q, want %q", rank, got, token)
		}
		if token == "" {
			continue
		}
		if r, ok := table.Rank(token); !ok || int(r) != rank {
			t.Errorf("Rank(%q) = %d, %v; want %d", token, r, ok, rank)
		}
	}
	for _, s := range []string{"", "x", "ba", "abcd", "aaaaa"} {
		if r, ok := table.Rank(s); ok {
			t.Errorf("Rank(%q) = %d, want none", s, r)
		}
	}
}

func TestOpenRejects(t *testing.T) {
	data, err := Build(tiny)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"empty":     "",
		"magic":     "XPE1" + string(data[4:]),
		"truncated": string(data[:len(data)-1]),
		"longer":    string(data) + "x",
		"no slots":  string(data[:headerLen+len(tiny)]),
	} {
		if _, err := Open(bad); err == nil {
			t.Errorf("%s: Open succeeded", name)
		}
	}
	if _, err := Build([]string{strings.Repeat("x", 256)}); err == nil {
		t.Error("Build took a token of 256 bytes")
	}
}
