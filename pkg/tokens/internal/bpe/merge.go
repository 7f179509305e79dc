package bpe

// The merge is tiktoken's, as tiktoken-go's codec writes it (mergePairs):
// a piece that is a token is that token; any other starts as its single
// bytes and repeatedly merges the adjacent pair whose concatenation is the
// token of lowest rank (the leftmost of equal ones), until no adjacent pair
// is a token. Its tokens are the parts left, counted whether or not a part
// is itself a token (a lone byte always is in a byte-level vocabulary).

// noRank marks a boundary that does not merge with the next one.
const noRank = ^uint32(0)

// heapThreshold is the piece length, in bytes, from which the merge finds
// the lowest pair with a heap rather than a scan, as the codec does: the
// two give the same parts, the heap in O(n log n) for long pieces.
const heapThreshold = 96

// part is a boundary between parts: where a part starts, and the rank of
// the token it and the next part would merge into.
type part struct {
	offset int32
	rank   uint32
}

// Count returns the number of tokens piece merges into.
func (t *Table) Count(piece string) int {
	if _, ok := t.Rank(piece); ok {
		return 1
	}
	if len(piece) < heapThreshold {
		return len(t.mergeScan(piece)) - 1
	}
	return len(t.mergeHeap(piece)) - 1
}

// Split returns the boundaries of the tokens piece merges into: 0, the end
// of each token, len(piece) last.
func (t *Table) Split(piece string) []int {
	if _, ok := t.Rank(piece); ok {
		return []int{0, len(piece)}
	}
	if len(piece) < heapThreshold {
		parts := t.mergeScan(piece)
		bounds := make([]int, len(parts))
		for i, p := range parts {
			bounds[i] = int(p.offset)
		}
		return bounds
	}
	return t.mergeHeap(piece)
}

// mergeScan merges, finding the lowest pair by a linear scan: each merge
// costs O(n), the piece O(n²), the fastest way for short pieces.
func (t *Table) mergeScan(piece string) []part {
	parts := make([]part, len(piece)+1)
	for i := range parts {
		parts[i] = part{int32(i), noRank}
	}
	// rankOf is the rank of the parts i to i+skip+1 merged.
	rankOf := func(i, skip int) uint32 {
		if i+skip+2 < len(parts) {
			if r, ok := t.Rank(piece[parts[i].offset:parts[i+skip+2].offset]); ok {
				return r
			}
		}
		return noRank
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rankOf(i, 0)
	}
	for len(parts) > 1 {
		minRank, minIndex := noRank, 0
		for i, p := range parts[:len(parts)-1] {
			if p.rank < minRank {
				minRank, minIndex = p.rank, i
			}
		}
		if minRank == noRank {
			break
		}
		parts[minIndex].rank = rankOf(minIndex, 1)
		if minIndex > 0 {
			parts[minIndex-1].rank = rankOf(minIndex-1, 1)
		}
		parts = append(parts[:minIndex+1], parts[minIndex+2:]...)
	}
	return parts
}
