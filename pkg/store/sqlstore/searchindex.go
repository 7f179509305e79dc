package sqlstore

// The search index every write keeps: its entries (docids.go: their keys).

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/transcript"
)

// termer makes index entries, reusing its memory: a writer keeps one.
type termer struct{ search.Termer }

// of is r's index entry in conv.
func (t *termer) of(d Dialect, conv string, r *transcript.Record) string {
	return t.entry(d, conv, string(r.Message.Role), search.Text(r))
}

// entry is the index entry in conv of a record of role whose searchable
// text (search.Text) is text.
func (t *termer) entry(d Dialect, conv, role, text string) string {
	return d.IndexText(t.Terms(text), role, conv)
}

// stored is the index entry of a stored body.
func (t *termer) stored(d Dialect, conv string, body []byte) (string, error) {
	r, err := parseStored(body)
	if err != nil {
		return "", err
	}
	return t.of(d, conv, &r), nil
}

// StoredIndexText is the index entry of the stored record body of conv:
// what a dialect deleting entries by their text (SQLite) runs in SQL.
func StoredIndexText(d Dialect, conv string, body []byte) (string, error) {
	var t termer
	return t.stored(d, conv, body)
}

// entry is a record's place in the index: its docid and index text, and
// that text as a JSON string when it was made beforehand (see flush).
type entry struct {
	docid  int64
	text   string
	quoted string
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
	n := 2
	for _, e := range es {
		n += len(e.quoted) + len(e.text) + 24 // its key, quotes and commas
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, tx.d.IndexKey(e.docid), 10)
		b = append(b, '"', ':')
		if e.quoted != "" {
			b = append(b, e.quoted...)
		} else {
			b = appendJSONText(b, e.text)
		}
	}
	b = append(b, '}')
	// Bound without a copy: b is not touched until the statement is done.
	if _, err := tx.ExecContext(ctx, tx.d.IndexInsert(), unsafe.String(unsafe.SliceData(b), len(b))); err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	return nil
}

// deleteRecords deletes the records matching where (args bound to its
// placeholders), their index entries first, and returns how many went.
// Every deletion of records goes through it.
// Those the index has not seen yet cost it nothing (searchcursor.go).
func deleteRecords(ctx context.Context, tx conn, where string, args ...any) (int64, error) {
	if separateIndex(tx.d) {
		q := tx.d.IndexDeleteWhere(`(` + where + `) AND ` + sqlIndexed(tx.d.DocIDColumn()))
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, fmt.Errorf("unindex records: %w", err)
		}
		if err := forgetPending(ctx, tx, where, args...); err != nil {
			return 0, err
		}
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE `+where, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
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
// creation time. Where the index is a table of its own, its entry goes
// (the same text: what moves a record, its creation time, is no text of
// it) and the record is indexed again at its new docid when the index
// catches up.
func moveDocID(ctx context.Context, tx conn, conv string, r *transcript.Record) error {
	col := tx.d.DocIDColumn()
	if separateIndex(tx.d) {
		where := `conversation = ? AND id = ?`
		if err := unindexWhere(ctx, tx, where, conv, r.ID); err != nil {
			return err
		}
		if err := forgetPending(ctx, tx, where, conv, r.ID); err != nil {
			return err
		}
	}
	var ids docIDs
	docid, err := ids.arg(ctx, tx, r.Metadata.Timing.Creation)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE records SET `+col+` = `+tx.d.DocIDValue()+` WHERE conversation = ? AND id = ?`, docid, conv, r.ID); err != nil {
		return err
	}
	return pendNew(ctx, tx, docid)
}

// maxHeldEntries bounds the index entries (bytes of text) held before
// they are written, in one statement: each such write is a segment of
// FTS5's, merged later; each MiB held costs about 15 MiB of memory while
// it is written.
const maxHeldEntries = 2 << 20

// appendJSONText appends s as a JSON string whose bytes SQLite's JSON
// functions give back unchanged: only the quote, the backslash and the
// control characters are escaped, other bytes (invalid UTF-8 included)
// go as they are.
func appendJSONText(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	from := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[from:i]...)
		if c < 0x20 {
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		} else {
			b = append(b, '\\', c)
		}
		from = i + 1
	}
	b = append(b, s[from:]...)
	return append(b, '"')
}

// ReindexSearch writes the index entry of every stored record again, in
// pages of record bodies (bounded memory) and held entries written a few
// MiB at a time: the Go step of a migration that rebuilt the index table.
// Only for a dialect whose index is a table of its own.
func ReindexSearch(ctx context.Context, tx *sql.Tx, d Dialect) error {
	c := conn{tx, d}
	col := d.DocIDColumn()
	var t termer
	var es []entry
	held := 0
	after := int64(math.MinInt64)
	for {
		rows, err := c.QueryContext(ctx, `SELECT `+col+`, conversation, body FROM records WHERE `+col+` > ? ORDER BY `+col+` LIMIT 4096`, after)
		if err != nil {
			return fmt.Errorf("index records: %w", err)
		}
		n := 0
		for rows.Next() {
			var conv string
			var body []byte
			if err := rows.Scan(&after, &conv, &body); err != nil {
				rows.Close()
				return fmt.Errorf("index records: %w", err)
			}
			text, err := t.stored(d, conv, body)
			if err != nil {
				rows.Close()
				return fmt.Errorf("index record at %d: %w", after, err)
			}
			es = append(es, entry{docid: after, text: text})
			held += len(text)
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("index records: %w", err)
		}
		if n == 0 || held > maxHeldEntries {
			if err := index(ctx, c, es); err != nil {
				return err
			}
			es, held = es[:0], 0
		}
		if n == 0 {
			return nil
		}
	}
}
