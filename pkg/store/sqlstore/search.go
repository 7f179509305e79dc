package sqlstore

// Search: the ranges the index gives (index.go), read side by side and
// merged newest first (searchrange.go: reading one range).

import (
	"context"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
)

// searchPage is the first page of candidates a search reads; each next
// page is twice as large, up to searchPageMax.
const (
	searchPage    = 32
	searchPageMax = 4096
)

// Search reads the index's candidates page by page, newest first, and keeps
// those search.Match holds (the index finds exactly the matches unless a
// phrase must be checked), until o.Limit. The slots and the ranges the
// index adds (an in-order range, what it has not caught up with) are read
// side by side, each newest first, and merged by creation time.
func (s *Store) Search(ctx context.Context, o store.SearchOptions, fn func(store.SearchHit) error) error {
	if o.Query == nil {
		return fmt.Errorf("search: no query")
	}
	if !s.readOnly {
		// The index catches up first, in transactions of its own; a store
		// this process cannot write (a read-only file or mount), or whose
		// lock another writer holds, is read as it is, what the index
		// lacks scanned below.
		if _, err := s.indexSearch(ctx, o.Progress, searchLockWait); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.log().Info("search: the index did not catch up; reading the records it lacks", "error", err.Error())
		}
	}
	x := o.Query.Index()
	page := searchPage
	if o.Limit > 0 && o.Query.Exact() {
		page = min(max(o.Limit+1, searchPage), searchPageMax)
	}
	return s.inSnapshot(ctx, func(tx conn) error {
		sparse := false
		if probe, match, more := s.ix().SearchProbe(x, o.Conversation, o.Role); probe != "" {
			var n int64
			if err := tx.QueryRowContext(ctx, probe, append([]any{match}, more...)...).Scan(&n); err != nil {
				return fmt.Errorf("search: %w", err)
			}
			sparse = s.ix().Sparse(n)
		}
		slots := &searchRange{s: s, tx: tx, o: o, x: x, page: page, sparse: sparse,
			lo: 0, hi: DocSlot(maxSlotMillis) + 1<<docShift - 1, bounded: o.Since > 0 || o.Until > 0}
		if o.Until > 0 {
			slots.hi = DocSlot(o.Until) - 1
		}
		if o.Since > 0 {
			slots.lo = DocSlot(o.Since)
		}
		more, err := s.ix().ranges(ctx, tx, slots)
		if err != nil {
			return err
		}
		ranges := append([]*searchRange{slots}, more...)
		found := 0
		for {
			// The range whose next match was created last goes first.
			var next *searchRange
			for _, r := range ranges {
				ok, err := r.peek(ctx)
				if err != nil {
					return err
				}
				if ok && (next == nil || r.buf[0].Created > next.buf[0].Created) {
					next = r
				}
			}
			if next == nil {
				return nil
			}
			h := next.buf[0]
			next.buf = next.buf[1:]
			if err := fn(h); err != nil {
				return err
			}
			if found++; o.Limit > 0 && found >= o.Limit {
				return nil
			}
		}
	})
}
