package search

import (
	"cmp"
	"slices"
)

// RankLimit is the most matches a ranked search reads and ranks: the
// newest ones, when there are more.
const RankLimit = 10000

// Rank orders docs (newest first, as a backend gives them) by Score, best
// first, the newer first among equals, and returns their indexes and scores.
func (q *Query) Rank(docs []*Doc) (order []int, scores []float64) {
	df := map[string]int{}
	total := 0
	for _, d := range docs {
		q.DocFreq(d, df)
		total += d.Len()
	}
	avg := 1.0
	if len(docs) > 0 {
		avg = float64(total) / float64(len(docs))
	}
	scores = make([]float64, len(docs))
	order = make([]int, len(docs))
	for i, d := range docs {
		scores[i] = q.Score(d, len(docs), df, avg)
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	return order, scores
}
