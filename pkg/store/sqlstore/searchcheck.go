package sqlstore

// A look at the search index against the records, for tests.

import (
	"context"
	"fmt"
	"strings"
)

// CheckSearchIndex compares what the index holds with the entries the
// stored records make, where the index is a table of its own (its entries
// are deleted by their text, which nothing checks as it is written): for
// tests, and for a store of test size. Records the index has not caught
// up with must have no entry.
func (s *Store) CheckSearchIndex(ctx context.Context) error {
	if err := checkInOrder(ctx, conn{s.db, s.d}); err != nil {
		return err
	}
	setup, vocab := s.d.IndexEntries()
	if vocab == "" {
		return nil
	}
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
	rows, err := c.QueryContext(ctx, `SELECT `+s.d.DocIDColumn()+`, conversation, body FROM records WHERE `+sqlIndexed(s.d.DocIDColumn()))
	if err != nil {
		return err
	}
	var t termer
	for rows.Next() {
		var docid int64
		var conv string
		var body []byte
		if err := rows.Scan(&docid, &conv, &body); err != nil {
			rows.Close()
			return err
		}
		text, err := t.stored(s.d, conv, body)
		if err != nil {
			rows.Close()
			return err
		}
		for _, term := range strings.Fields(text) {
			want[pair{s.d.IndexKey(docid), term}] = true
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
func checkInOrder(ctx context.Context, c conn) error {
	base := c.d.InOrderDocIDs()
	if base == 0 {
		return nil
	}
	col := c.d.DocIDColumn()
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
