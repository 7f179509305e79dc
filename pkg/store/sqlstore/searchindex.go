package sqlstore

// The search index every write keeps: docids, index entries.

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/transcript"
)

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
}

// arg returns what DocIDValue's placeholder is bound to for a record
// created at ms: the docid (the highest docid in its slot, plus one: a
// write transaction excludes every other writer), or its slot.
func (a *docIDs) arg(ctx context.Context, tx conn, ms int64) (int64, error) {
	slot := DocSlot(ms)
	if !tx.d.AllocatesDocIDs() {
		return slot, nil
	}
	if a.next == nil {
		a.next = map[int64]int64{}
	}
	n, ok := a.next[slot]
	if !ok {
		if a.top == nil {
			col := tx.d.DocIDColumn()
			st, err := tx.PrepareContext(ctx, `SELECT max(`+col+`) FROM records WHERE `+col+` >= ? AND `+col+` <= ?`)
			if err != nil {
				return 0, fmt.Errorf("allocate docid: %w", err)
			}
			a.top = st
		}
		var top sql.NullInt64
		if err := a.top.QueryRowContext(ctx, slot, slot+1<<docShift-1).Scan(&top); err != nil {
			return 0, fmt.Errorf("allocate docid: %w", err)
		}
		n = slot
		if top.Valid {
			n = top.Int64 + 1
		}
	}
	// A millisecond with more than 2^20 records spills into the next.
	a.next[slot] = n + 1
	if n >= slot+1<<docShift {
		a.next[slot] = n
		if ms >= maxSlotMillis {
			return 0, fmt.Errorf("allocate docid: over %d records created after %s", 1<<docShift, time.UnixMilli(maxSlotMillis).UTC().Format(time.DateOnly))
		}
		return a.arg(ctx, tx, ms+1)
	}
	return n, nil
}

// termer makes index entries, reusing its memory: a writer keeps one.
type termer struct{ search.Termer }

// of is r's index entry in conv.
func (t *termer) of(d Dialect, conv string, r *transcript.Record) string {
	return d.IndexText(t.Terms(search.Text(r)), string(r.Message.Role), conv)
}

// storedEntry is the index entry of a stored body.
func (t *termer) stored(d Dialect, conv string, body []byte) (string, error) {
	r, err := parseStored(body)
	if err != nil {
		return "", err
	}
	return t.of(d, conv, &r), nil
}

// entry is a record's place in the index: its docid and index text.
type entry struct {
	docid int64
	text  string
}

// index adds entries where the index is a table of its own; where the
// terms are in the row, the row's INSERT wrote them.
func index(ctx context.Context, tx conn, es []entry) error {
	if tx.d.TermsInRow() || len(es) == 0 {
		return nil
	}
	// Newest first: SQLite's entries are keyed by the docid negated, and
	// FTS5 writes what it holds to a new segment whenever a key comes
	// that is not above the last one.
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(b.docid, a.docid) })
	args := make([]any, 0, 2*len(es))
	for _, e := range es {
		args = append(args, tx.d.IndexKey(e.docid), e.text)
	}
	if _, err := tx.ExecContext(ctx, tx.d.IndexInsert(len(es)), args...); err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	return nil
}

// unindex removes docid's entry where the index is a table of its own.
func unindex(ctx context.Context, tx conn, docid int64) error {
	if tx.d.TermsInRow() {
		return nil
	}
	if _, err := tx.ExecContext(ctx, tx.d.IndexDelete(), tx.d.IndexKey(docid)); err != nil {
		return fmt.Errorf("unindex record: %w", err)
	}
	return nil
}

// docCols is the docid and terms columns' part of an INSERT's column list.
func docCols(d Dialect) string {
	if d.TermsInRow() {
		return ", " + d.DocIDColumn() + ", terms"
	}
	return ", " + d.DocIDColumn()
}

// docVals is their part of a row's VALUES.
func docVals(d Dialect) string {
	if d.TermsInRow() {
		return ", " + d.DocIDValue() + ", ?"
	}
	return ", " + d.DocIDValue()
}

// docArgs appends their arguments.
func docArgs(d Dialect, args []any, docid int64, text string) []any {
	if d.TermsInRow() {
		return append(args, docid, text)
	}
	return append(args, docid)
}

// moveDocID gives the stored record r of conv the docid of its (new)
// creation time.
func moveDocID(ctx context.Context, tx conn, conv string, r *transcript.Record) error {
	col := tx.d.DocIDColumn()
	var old int64
	if err := tx.QueryRowContext(ctx, `SELECT `+col+` FROM records WHERE conversation = ? AND id = ?`, conv, r.ID).Scan(&old); err != nil {
		return err
	}
	var ids docIDs
	docid, err := ids.arg(ctx, tx, r.Metadata.Timing.Creation)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE records SET `+col+` = `+tx.d.DocIDValue()+` WHERE conversation = ? AND id = ?`, docid, conv, r.ID); err != nil {
		return err
	}
	if tx.d.TermsInRow() {
		return nil
	}
	if err := unindex(ctx, tx, old); err != nil {
		return err
	}
	var t termer
	return index(ctx, tx, []entry{{docid, t.of(tx.d, conv, r)}})
}

// reindex replaces docid's index entry: held (a batch sent, its entries
// not yet), or written.
func (w *writer) reindex(ctx context.Context, docid int64, text string) error {
	for i := range w.entries {
		if w.entries[i].docid == docid {
			w.entries[i].text = text
			return nil
		}
	}
	if err := unindex(ctx, w.tx, docid); err != nil {
		return err
	}
	w.entries = append(w.entries, entry{docid, text})
	return nil
}

// maxHeldEntries bounds the index entries (bytes of text) a writer holds
// before it writes them.
const maxHeldEntries = 8 << 20

// indexChunk is how many entries one statement writes.
const indexChunk = 4096

// index writes the held index entries. They wait for the end of the
// transaction (or maxHeldEntries): SQLite's FTS5 writes what it holds to a
// new segment at every statement that follows one writing it, and merges
// segments as they pile up, so entries written beside each batch of
// records cost twice what they cost written together.
func (w *writer) index(ctx context.Context) error {
	// Sorted whole, so that the chunks follow each other in the index's
	// order (see index).
	slices.SortFunc(w.entries, func(a, b entry) int { return cmp.Compare(b.docid, a.docid) })
	for len(w.entries) > 0 {
		n := min(len(w.entries), indexChunk)
		if err := index(ctx, w.tx, w.entries[:n]); err != nil {
			return err
		}
		w.entries = w.entries[n:]
	}
	w.entries, w.entryBytes = nil, 0
	return nil
}
