package sqlstore

// A docid range a search reads, page by page, newest first (search.go
// merges them).

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
)

// maxHeldHits bounds the bytes of record bodies a range holds: its matches
// wait there until the merge takes them.
const maxHeldHits = 4 << 20

// searchRange reads the matches with docid in [lo, hi], newest first, a
// page at a time.
type searchRange struct {
	s               *Store
	tx              conn
	o               store.SearchOptions
	x               search.Index
	lo, hi          int64
	page            int
	bounded, sparse bool
	// scan, when set, is the statement reading the range's records that
	// the index does not hold, every one a candidate: docid in [?2, ?1],
	// newest first, up to ?3, the columns of SearchQuery's.
	scan string
	// seen: docids may repeat (PostgreSQL): the next page starts at the
	// last docid again and skips the rows of it already read.
	seen map[[2]string]bool
	buf  []store.SearchHit
	done bool
}

// peek reports whether the range has a next match, reading pages until
// it holds one or has none left.
func (r *searchRange) peek(ctx context.Context) (bool, error) {
	for len(r.buf) == 0 && !r.done {
		if err := r.read(ctx); err != nil {
			return false, err
		}
	}
	return len(r.buf) > 0, nil
}

// read reads the next page of candidates and holds their matches.
func (r *searchRange) read(ctx context.Context) error {
	if r.lo > r.hi {
		r.done = true
		return nil
	}
	if r.seen == nil {
		r.seen = map[[2]string]bool{}
	}
	r.buf = nil // not the emptied one: its array holds the bodies taken
	var rows *sql.Rows
	var err error
	if r.scan != "" {
		rows, err = r.tx.QueryContext(ctx, r.scan, r.hi, r.lo, r.page)
	} else {
		query, match, more := r.s.ix().SearchQuery(r.x, r.o.Conversation, r.o.Role, r.bounded, r.sparse)
		rows, err = r.tx.QueryContext(ctx, query, append([]any{match, r.hi, r.lo, r.page}, more...)...)
	}
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	n, last, held, full := 0, int64(-1), 0, false
	var lastKeys [][2]string
	for !full && rows.Next() {
		var h store.SearchHit
		var docid int64
		var body []byte
		var id string
		if err := rows.Scan(&docid, &h.Conversation, &id, &h.Pos, &h.Sub, &h.Seq, &h.Role, &h.Created, &body); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		n++
		key := [2]string{h.Conversation, id}
		if docid != last {
			last, lastKeys = docid, lastKeys[:0]
		}
		lastKeys = append(lastKeys, key)
		if docid == r.hi && r.seen[key] || !keep(r.o, h) {
			continue
		}
		rec, err := parseStored(body)
		if err != nil {
			return fmt.Errorf("search: record %s: %w", id, err)
		}
		h.Doc = search.NewDoc(search.Text(&rec))
		if !r.o.Query.Match(h.Doc) {
			continue
		}
		h.Body = body
		r.buf = append(r.buf, h)
		// A page's matches wait for the merge: their bodies are held up
		// to maxHeldHits bytes, and the page ends there.
		held += len(body)
		full = held >= maxHeldHits
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if n < r.page && !full {
		r.done = true
		return nil
	}
	// The next page starts at the last docid read (also when the bodies
	// held ended this one).
	switch {
	case last != r.hi:
		clear(r.seen)
		if !full {
			r.page = min(r.page*2, max(r.page, searchPageMax))
		}
	case !full:
		r.page = min(r.page*2, 1<<30) // one docid filled the page: read more of it
	}
	r.hi = last
	r.bounded = true // the next pages start below the last docid read
	for _, k := range lastKeys {
		r.seen[k] = true
	}
	return nil
}

// keep holds a candidate to o's filters exactly (the index's docid range
// cannot tell times past maxSlotMillis apart).
func keep(o store.SearchOptions, h store.SearchHit) bool {
	return (o.Conversation == "" || h.Conversation == o.Conversation) && (o.Role == "" || h.Role == o.Role) &&
		(o.Since == 0 || h.Created >= o.Since) && (o.Until == 0 || h.Created < o.Until)
}
