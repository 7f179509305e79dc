package sqlstore

// A look at the search index against the records, for tests.

import (
	"context"
	"fmt"
	"strings"
)

// CheckSearchIndex checks the index against the records, where it is a
// table of its own: the in-order range's order (checkInOrder), and what
// the index holds against the entries the stored records make (its
// entries are deleted by their text, which nothing checks as it is
// written). For tests, and for a store of test size. Records the index
// has not caught up with must have no entry.
func (s *Store) CheckSearchIndex(ctx context.Context) error {
	return s.ix().check(ctx, s)
}

// check: the in-order range's order, then the entries.
func (t *indexTable) check(ctx context.Context, s *Store) error {
	if err := t.checkInOrder(ctx, conn{s.db, s.d}); err != nil {
		return err
	}
	setup, vocab := t.IndexEntries()
	db, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, setup); err != nil {
		return err
	}
	c := conn{db, s.d}
	type pair struct {
		key  int64
		term string
	}
	want := map[pair]bool{}
	// Only the records the index caught up with (searchcursor.go).
	rows, err := c.QueryContext(ctx, `SELECT `+t.column+`, conversation, body FROM records WHERE `+t.sqlIndexed())
	if err != nil {
		return err
	}
	var tm termer
	for rows.Next() {
		var docid int64
		var conv string
		var body []byte
		if err := rows.Scan(&docid, &conv, &body); err != nil {
			rows.Close()
			return err
		}
		text, err := tm.stored(s.d, conv, body)
		if err != nil {
			rows.Close()
			return err
		}
		for _, term := range strings.Fields(text) {
			want[pair{t.IndexKey(docid), term}] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = c.QueryContext(ctx, vocab)
	if err != nil {
		return err
	}
	defer rows.Close()
	var stale []pair
	for rows.Next() {
		var p pair
		if err := rows.Scan(&p.key, &p.term); err != nil {
			return err
		}
		if !want[p] {
			stale = append(stale, p)
		}
		delete(want, p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(stale) > 0 || len(want) > 0 {
		return fmt.Errorf("search index: %d entries of no record (%v...), %d missing", len(stale), stale[:min(len(stale), 3)], len(want))
	}
	return nil
}

// checkInOrder: in the in-order range, creation times never fall as docids
// rise. Search finds --since and --until there by binary search
// (inOrderBounds) and merges the range with the slots by creation time, so
// a record out of order there would be missed or misplaced.
func (t *indexTable) checkInOrder(ctx context.Context, c conn) error {
	base, col := t.inOrder, t.column
	rows, err := c.QueryContext(ctx, `SELECT `+col+`, created FROM records WHERE `+col+` >= ? ORDER BY `+col, base)
	if err != nil {
		return err
	}
	defer rows.Close()
	var prevID, prev int64
	for n := 0; rows.Next(); n++ {
		var id, created int64
		if err := rows.Scan(&id, &created); err != nil {
			return err
		}
		if n > 0 && created < prev {
			return fmt.Errorf("search index: the in-order range goes back in time: docid %d created %d after docid %d created %d", id, created, prevID, prev)
		}
		prevID, prev = id, created
	}
	return rows.Err()
}
