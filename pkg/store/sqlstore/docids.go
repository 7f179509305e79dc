package sqlstore

// Docids: the order search reads records in, newest first. Where the
// index allocates them (indexTable), docIDs does, per transaction.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// maxAheadMillis: a record created further than this after now (a clock
// gone wrong, a bad import) takes its slot's docid; in the in-order range
// it would send every record after it to the slots.
const maxAheadMillis = 24 * 60 * 60 * 1000

// docShift: a docid is its creation slot, ms << docShift, plus a rank
// within the millisecond. maxSlotMillis (year 2109) bounds the times a
// docid tells apart: later ones share the last slot.
const (
	docShift      = 20
	maxSlotMillis = 1<<42 - 1
)

// DocSlot is the first docid of the millisecond ms.
func DocSlot(ms int64) int64 { return min(max(ms, 0), maxSlotMillis) << docShift }

// docIDs gives new records their docids in one transaction.
type docIDs struct {
	next map[int64]int64 // slot -> next free docid (where the engine picks)
	// top reads a slot's highest docid; prepared once (an import of old
	// records has a slot per record), closed with the transaction.
	top *sql.Stmt
	// high is the highest slot docid stored when the transaction began
	// (read once): a slot above it is empty, and needs no look.
	high     int64
	highRead bool
	// The in-order range (indexTable.inOrder), read once (orderNext is
	// 0 until then): the docid its next record takes, the creation time of
	// its newest, and the latest it takes (a day after now).
	orderNext, orderNewest, orderLatest int64
	// noCursor: the store has no index cursor yet (a migration's Go step
	// before it, which indexes what it writes).
	noCursor bool
	// primed: every read was made beforehand (prime), and tops holds the
	// highest docid of each slot to look at; arg reads nothing, and sets
	// unprimed when it needs a slot tops lacks.
	primed, unprimed bool
	tops             map[int64]int64
}

// prime makes every read arg will need for the records matching where (a
// condition on records) beforehand, for arg to run inside a statement.
func (a *docIDs) prime(ctx context.Context, tx conn, where string, args ...any) error {
	return tx.ix().prime(ctx, tx, a, where, args...)
}

// primeFor is prime for t.
func (a *docIDs) primeFor(ctx context.Context, tx conn, t *indexTable, where string, args ...any) error {
	if err := a.readOrder(ctx, tx, t); err != nil {
		return err
	}
	if err := a.readHigh(ctx, tx, t); err != nil {
		return err
	}
	a.tops = map[int64]int64{}
	if a.high >= 0 {
		// Only a slot at or below the highest slot docid stored holds any.
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT created FROM records WHERE `+where, args...)
		if err != nil {
			return fmt.Errorf("allocate docids: %w", err)
		}
		var slots []int64
		for rows.Next() {
			var ms int64
			if err := rows.Scan(&ms); err != nil {
				rows.Close()
				return fmt.Errorf("allocate docids: %w", err)
			}
			if slot := DocSlot(ms); slot <= a.high {
				slots = append(slots, slot)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("allocate docids: %w", err)
		}
		for _, slot := range slots {
			n, err := a.slotNext(ctx, tx, t, slot)
			if err != nil {
				return err
			}
			a.tops[slot] = n
		}
		if a.top != nil {
			a.top.Close()
			a.top = nil
		}
	}
	a.primed = true
	return nil
}

// arg returns what the index's docIDValue placeholder is bound to for a
// record created at ms (SearchIndex.docID).
func (a *docIDs) arg(ctx context.Context, tx conn, ms int64) (int64, error) {
	return tx.ix().docID(ctx, tx, a, ms)
}

// alloc is the docid t gives a record created at ms: in the in-order
// range when ms is at or after its newest record; else the highest docid
// in its slot, plus one (a write transaction excludes every other writer).
func (a *docIDs) alloc(ctx context.Context, tx conn, t *indexTable, ms int64) (int64, error) {
	slot := DocSlot(ms)
	if err := a.readOrder(ctx, tx, t); err != nil {
		return 0, err
	}
	if ms >= a.orderNewest && ms <= a.orderLatest {
		a.orderNewest = ms
		a.orderNext++
		return a.orderNext - 1, nil
	}
	if a.next == nil {
		a.next = map[int64]int64{}
	}
	if err := a.readHigh(ctx, tx, t); err != nil {
		return 0, err
	}
	n, ok := a.next[slot]
	switch {
	case ok:
	case slot > a.high:
		n = slot
	case a.primed:
		var known bool
		if n, known = a.tops[slot]; !known {
			a.unprimed = true
			return 0, errForkInGo
		}
	default:
		var err error
		if n, err = a.slotNext(ctx, tx, t, slot); err != nil {
			return 0, err
		}
	}
	// A millisecond with more than 2^20 records spills into the next.
	a.next[slot] = n + 1
	if n >= slot+1<<docShift {
		a.next[slot] = n
		if ms >= maxSlotMillis {
			return 0, fmt.Errorf("allocate docid: over %d records created after %s", 1<<docShift, time.UnixMilli(maxSlotMillis).UTC().Format(time.DateOnly))
		}
		return a.alloc(ctx, tx, t, ms+1)
	}
	return n, nil
}

// readOrder reads the in-order range once: its next docid and newest
// creation time, and the latest creation time it takes.
func (a *docIDs) readOrder(ctx context.Context, tx conn, t *indexTable) error {
	base := t.inOrder
	if a.orderNext != 0 {
		return nil
	}
	var id, created sql.NullInt64
	col := t.column
	err := tx.QueryRowContext(ctx, `SELECT `+col+`, created FROM records WHERE `+col+` >= ? ORDER BY `+col+` DESC LIMIT 1`, base).Scan(&id, &created)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("allocate docid: %w", err)
	}
	a.orderNext, a.orderNewest = base, math.MinInt64
	if id.Valid {
		a.orderNext, a.orderNewest = id.Int64+1, created.Int64
	}
	if !a.noCursor {
		// Above the index cursor too: a docid the index held (its record
		// deleted since) is never given again, so every docid above the
		// cursor is a record not indexed.
		cur, err := indexCursor(ctx, tx)
		if err != nil {
			return fmt.Errorf("allocate docid: %w", err)
		}
		a.orderNext = max(a.orderNext, cur+1)
	}
	a.orderLatest = time.Now().UnixMilli() + maxAheadMillis
	return nil
}

// readHigh reads, once, the highest slot docid stored.
func (a *docIDs) readHigh(ctx context.Context, tx conn, t *indexTable) error {
	if a.highRead {
		return nil
	}
	var high sql.NullInt64
	col := t.column
	if err := tx.QueryRowContext(ctx, `SELECT max(`+col+`) FROM records WHERE `+col+` < ?`, t.inOrder).Scan(&high); err != nil {
		return fmt.Errorf("allocate docid: %w", err)
	}
	a.high, a.highRead = high.Int64, true
	if !high.Valid {
		a.high = -1
	}
	return nil
}

// slotNext reads the next free docid of slot: its highest, plus one.
func (a *docIDs) slotNext(ctx context.Context, tx conn, t *indexTable, slot int64) (int64, error) {
	if a.top == nil {
		col := t.column
		st, err := tx.PrepareContext(ctx, `SELECT max(`+col+`) FROM records WHERE `+col+` >= ? AND `+col+` <= ?`)
		if err != nil {
			return 0, fmt.Errorf("allocate docid: %w", err)
		}
		a.top = st
	}
	// No wait for a batch inserted behind tx (overlap.go): a slot is read
	// only before this allocator gives its first docid, so none of tx's
	// rows is in it yet.
	var top sql.NullInt64
	if err := a.top.QueryRowContext(ctx, slot, slot+1<<docShift-1).Scan(&top); err != nil {
		return 0, fmt.Errorf("allocate docid: %w", err)
	}
	if top.Valid {
		return top.Int64 + 1, nil
	}
	return slot, nil
}
