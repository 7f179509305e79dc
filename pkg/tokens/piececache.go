package tokens

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// pieceCache remembers the tokens of pieces seen before: words repeat (the
// few commonest make up most of a text), so the codec's byte-pair merge
// runs mostly on pieces new to the counter. It is a hash table of buckets
// of two slots, each holding the newest of the pieces that hash there and
// the one before, so two common pieces that share a bucket do not evict
// each other in turn. Its memory is bounded by construction (at most
// pieceCacheSlots pieces of at most maxCachedPiece bytes, under 2 MB)
// however many records pass, and a lookup takes no lock: a slot holds a
// pointer to an entry never written again, swapped atomically. Concurrent
// puts may lose an entry to each other; that costs a miss, never a wrong
// count, as an entry is found only by its own piece.
type pieceCache struct {
	seed  maphash.Seed
	slots []atomic.Pointer[cachedPiece]
}

type cachedPiece struct {
	piece  string
	tokens int
}

const (
	// pieceCacheSlots is a power of two; 16K slots hold the vocabulary of
	// a long conversation with few collisions (a miss costs a few µs).
	pieceCacheSlots = 1 << 14
	// maxCachedPiece: longer pieces (a long run of letters or spaces) are
	// rare and would only crowd the cache; they are merged each time.
	maxCachedPiece = 64
)

func newPieceCache() *pieceCache {
	return &pieceCache{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[cachedPiece], pieceCacheSlots)}
}

// bucket returns the first of the two slots of piece.
func (pc *pieceCache) bucket(piece string) int {
	return int(maphash.String(pc.seed, piece) & (pieceCacheSlots - 2))
}

// get returns the tokens of piece if the cache holds it.
func (pc *pieceCache) get(piece string) (int, bool) {
	if len(piece) > maxCachedPiece {
		return 0, false
	}
	b := pc.bucket(piece)
	for _, e := range [2]*cachedPiece{pc.slots[b].Load(), pc.slots[b+1].Load()} {
		if e != nil && e.piece == piece {
			return e.tokens, true
		}
	}
	return 0, false
}

// put remembers the tokens of piece, first in its bucket; the piece that
// was first moves second. The piece is copied: it is a substring of the
// text counted, which the cache must not keep alive.
func (pc *pieceCache) put(piece string, tokens int) {
	if len(piece) > maxCachedPiece {
		return
	}
	b := pc.bucket(piece)
	e := &cachedPiece{piece: strings.Clone(piece), tokens: tokens}
	pc.slots[b+1].Store(pc.slots[b].Swap(e))
}
