package sqlstore

// The search index every write keeps: its entries (docids.go: their keys).

import (
	"context"
	"sync"

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
	return d.SearchIndex().IndexText(t.Terms(text), role, conv)
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
// what a dialect deleting entries by their text (SQLite) runs in SQL, once
// per record deleted, so its termers are reused (a new one's map was a
// tenth of a large clear).
func StoredIndexText(d Dialect, conv string, body []byte) (string, error) {
	t := termers.Get().(*termer)
	defer termers.Put(t)
	return t.stored(d, conv, body)
}

var termers = sync.Pool{New: func() any { return new(termer) }}

// entry is a record's place in the index: its docid and index text.
type entry struct {
	docid int64
	text  string
}

// deleteRecords deletes the records matching where (args bound to its
// placeholders), their index entries first, and returns how many went.
// Every deletion of records goes through it.
func deleteRecords(ctx context.Context, tx conn, where string, args ...any) (int64, error) {
	if err := tx.ix().remove(ctx, tx, where, args...); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE `+where, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// moveDocID gives the stored record r of conv the docid of its (new)
// creation time. Where the index is a table of its own, its entry goes
// (the same text: what moves a record, its creation time, is no text of
// it) and the record is indexed again at its new docid when the index
// catches up.
func moveDocID(ctx context.Context, tx conn, conv string, r *transcript.Record) error {
	ix := tx.ix()
	if err := ix.remove(ctx, tx, `conversation = ? AND id = ?`, conv, r.ID); err != nil {
		return err
	}
	var ids docIDs
	docid, err := ids.arg(ctx, tx, r.Metadata.Timing.Creation)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE records SET `+ix.docIDColumn()+` = `+ix.docIDValue()+` WHERE conversation = ? AND id = ?`, docid, conv, r.ID); err != nil {
		return err
	}
	return ix.added(ctx, tx, docid)
}

// maxHeldEntries bounds the index entries (bytes of text) held before
// they are written, in one statement: each such write is a segment of
// FTS5's, merged later; each MiB held costs about 15 MiB of memory while
// it is written.
const maxHeldEntries = 2 << 20
