package bpe

// mergeNode is a boundary in mergeHeap's doubly linked list; rank is that
// of the token this part and the next would merge into.
type mergeNode struct {
	prev, next int32
	rank       uint32
}

// mergeHeap merges as mergeScan does, in O(n log n): the candidate pairs
// wait in a heap ordered by rank, then offset (the leftmost of equal ranks
// first); a candidate whose boundary has changed since is skipped. It
// returns the boundaries, as Split does.
func (t *Table) mergeHeap(piece string) []int {
	n := int32(len(piece))
	nodes := make([]mergeNode, n+1)
	for i := range nodes {
		nodes[i] = mergeNode{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankOf := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		if r, ok := t.Rank(piece[i:k]); ok {
			return r
		}
		return noRank
	}
	candidates := make(candidateHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := rankOf(i); r != noRank {
			nodes[i].rank = r
			candidates = append(candidates, candidate{r, i})
		}
	}
	candidates.init()
	for len(candidates) > 0 {
		top := candidates.pop()
		i := top.offset
		if nodes[i].rank != top.rank {
			continue
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankOf(b)
			if nodes[b].rank != noRank {
				candidates.push(candidate{nodes[b].rank, b})
			}
		}
	}
	var bounds []int
	for i := int32(0); i >= 0; i = nodes[i].next {
		bounds = append(bounds, int(i))
	}
	return bounds
}

type candidate struct {
	rank   uint32
	offset int32
}

// candidateHeap is a binary min-heap by rank, then offset; typed, unlike
// container/heap, so a push does not allocate.
type candidateHeap []candidate

func (h candidateHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].offset < h[b].offset
}

func (h candidateHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *candidateHeap) push(c candidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *candidateHeap) pop() candidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h candidateHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h candidateHeap) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
