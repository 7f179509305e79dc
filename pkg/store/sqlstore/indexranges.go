package sqlstore

// The docid ranges a search reads where the index is a table of its own:
// the slots, the in-order range, and what the index does not hold yet.

import (
	"context"
	"database/sql"
	"fmt"
)

// ranges: the in-order range, read through the index like the slots, and
// what the index does not hold (indextable.go), read record by record:
// the in-order range above the cursor, and the pending records of each
// range. slots ends at the highest slot docid stored.
func (t *indexTable) ranges(ctx context.Context, tx conn, slots *searchRange) ([]*searchRange, error) {
	// A store written in order has no slot docids: no FTS5 query need
	// look for them.
	col := t.column
	var top sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(`+col+`) FROM records WHERE `+col+` < ?`, t.inOrder).Scan(&top); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	slots.hi = min(slots.hi, top.Int64)
	if !top.Valid {
		slots.hi = -1
	}
	lo, hi, err := t.inOrderBounds(ctx, tx, slots.o.Since, slots.o.Until)
	if err != nil {
		return nil, err
	}
	cur, err := indexCursor(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	cols := `r.` + col + `, r.conversation, r.id, r.pos, r.sub, r.seq, r.role, r.created, r.body`
	tail := `SELECT ` + cols + ` FROM records r WHERE r.` + col + ` <= ?1 AND r.` + col + ` >= ?2 ORDER BY r.` + col + ` DESC LIMIT ?3`
	pending := `SELECT ` + cols + ` FROM search_pending p CROSS JOIN records r ON r.` + col + ` = p.docid
		WHERE p.docid <= ?1 AND p.docid >= ?2 ORDER BY p.docid DESC LIMIT ?3`
	like := func(lo, hi int64, scan string) *searchRange {
		return &searchRange{s: slots.s, tx: tx, o: slots.o, x: slots.x, page: slots.page, lo: lo, hi: hi, scan: scan}
	}
	inOrder := like(lo, hi, "")
	inOrder.sparse, inOrder.bounded = slots.sparse, true
	return []*searchRange{inOrder,
		like(max(lo, cur+1), hi, tail),
		like(lo, min(hi, cur), pending),
		like(slots.lo, slots.hi, pending)}, nil
}

// inOrderBounds is the docid range [lo, hi] of the in-order range from
// base whose records were created in [since, until) (0: no bound):
// creation times rise with docids there, so each bound is a binary search.
func (t *indexTable) inOrderBounds(ctx context.Context, tx conn, since, until int64) (lo, hi int64, err error) {
	base, col := t.inOrder, t.column
	var top sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(`+col+`) FROM records WHERE `+col+` >= ?`, base).Scan(&top); err != nil {
		return 0, 0, fmt.Errorf("search: %w", err)
	}
	if !top.Valid {
		return base, base - 1, nil // empty
	}
	// first is the lowest docid of a record created at or after ms, or
	// one above the range.
	first := func(ms int64) (int64, error) {
		l, h := base, top.Int64+1
		for l < h {
			mid := l + (h-l)/2
			var id, created int64
			err := tx.QueryRowContext(ctx, `SELECT `+col+`, created FROM records WHERE `+col+` >= ? ORDER BY `+col+` LIMIT 1`, mid).Scan(&id, &created)
			if err != nil {
				return 0, fmt.Errorf("search: %w", err)
			}
			if created >= ms {
				h = mid
			} else {
				l = id + 1
			}
		}
		return l, nil
	}
	lo, hi = base, top.Int64
	if since > 0 {
		if lo, err = first(since); err != nil {
			return 0, 0, err
		}
	}
	if until > 0 {
		u, err := first(until)
		if err != nil {
			return 0, 0, err
		}
		hi = u - 1
	}
	return lo, hi, nil
}
