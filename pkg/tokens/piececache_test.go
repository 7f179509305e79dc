package tokens

import (
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// TestCountConcurrent counts from several goroutines at once on one
// Counter, as summarize does; under -race it checks the cache's sharing.
func TestCountConcurrent(t *testing.T) {
	for _, c := range counters(t) {
		want := make([]int, len(trickyTexts))
		for i, s := range trickyTexts {
			want[i], _ = codecOf(t, c).Count(s)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for round := range 50 {
					i := (g*7 + round) % len(trickyTexts)
					if got := c.Count(trickyTexts[i]); got != want[i] {
						t.Errorf("%s: Count(%q) = %d, codec %d", c.name, trickyTexts[i], got, want[i])
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

func TestPieceCache(t *testing.T) {
	pc := newPieceCache()
	text := "the cat sat"
	pc.put(text[4:7], 1)
	if n, ok := pc.get("cat"); !ok || n != 1 {
		t.Fatalf("get(cat) = %d, %v after put", n, ok)
	}
	// The cache keeps a copy, not the text the piece was cut from.
	if e := pc.slots[pc.bucket("cat")].Load(); unsafe.StringData(e.piece) == unsafe.StringData(text[4:7]) {
		t.Error("the cache keeps the counted text alive")
	}
	if _, ok := pc.get("dog"); ok {
		t.Error("get(dog) hit, never put")
	}
	long := strings.Repeat("x", maxCachedPiece+1)
	pc.put(long, 9)
	if _, ok := pc.get(long); ok {
		t.Error("a piece over maxCachedPiece was cached")
	}
	// A new piece evicts the older of the two in its bucket: the newest
	// two are found.
	var prev string
	for i := range 4 * pieceCacheSlots {
		piece := strings.Repeat("b", i%50) + string(rune(0x4e00+i))
		pc.put(piece, i)
		if n, ok := pc.get(piece); !ok || n != i {
			t.Fatalf("get(%q) = %d, %v just after put", piece, n, ok)
		}
		if i > 0 && pc.bucket(piece) == pc.bucket(prev) {
			if n, ok := pc.get(prev); !ok || n != i-1 {
				t.Fatalf("get(%q) = %d, %v: evicted by the next piece in its bucket", prev, n, ok)
			}
		}
		prev = piece
	}
	// Three pieces in one bucket: the oldest goes.
	pc = newPieceCache()
	same := piecesInOneBucket(pc, 3)
	for i, p := range same {
		pc.put(p, i)
	}
	if _, ok := pc.get(same[0]); ok {
		t.Error("a bucket held three pieces")
	}
	for i, p := range same[1:] {
		if n, ok := pc.get(p); !ok || n != i+1 {
			t.Errorf("get(%q) = %d, %v: one of the newest two", p, n, ok)
		}
	}
}

// piecesInOneBucket returns n pieces that share a bucket of pc.
func piecesInOneBucket(pc *pieceCache, n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		if p := string(rune(0x4e00 + i)); len(out) == 0 || pc.bucket(p) == pc.bucket(out[0]) {
			out = append(out, p)
		}
	}
	return out
}
