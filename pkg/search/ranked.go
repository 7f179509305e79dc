package search

// Ranked is a ranked search's matches: it holds the newest RankLimit of
// them as a backend hands them over (newest first), then gives them best
// first. T is the caller's hit; doc reads its Doc.
type Ranked[T any] struct {
	q    *Query
	doc  func(T) *Doc
	hits []T
	over bool
}

// NewRanked starts a ranked search for q.
func NewRanked[T any](q *Query, doc func(T) *Doc) *Ranked[T] {
	return &Ranked[T]{q: q, doc: doc}
}

// Add holds h, unless RankLimit are held already: then it reports that
// more matched (Over) and drops h, an older one.
func (r *Ranked[T]) Add(h T) {
	if len(r.hits) >= RankLimit {
		r.over = true
		return
	}
	r.hits = append(r.hits, h)
}

// Over reports whether more than RankLimit matched: the newest were ranked.
func (r *Ranked[T]) Over() bool { return r.over }

// Each calls fn with the held hits, best first, at most limit of them (0:
// all), each with its score; fn's error stops it.
func (r *Ranked[T]) Each(limit int, fn func(h T, score float64) error) error {
	docs := make([]*Doc, len(r.hits))
	for i, h := range r.hits {
		docs[i] = r.doc(h)
	}
	order, scores := r.q.Rank(docs)
	for n, i := range order {
		if limit > 0 && n >= limit {
			break
		}
		if err := fn(r.hits[i], scores[i]); err != nil {
			return err
		}
	}
	return nil
}
