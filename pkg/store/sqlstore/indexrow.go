package sqlstore

// The terms in the row (PostgreSQL's tsvector): every write writes a
// record's entry with it, in its terms column, so the index is never
// behind. Docids are slots plus the database's own sequence (docIDValue),
// never allocated here, and a search reads the slots only.

import (
	"context"
	"time"
)

// termsInRow is the SearchIndex whose entries are the records' terms column.
type termsInRow struct {
	IndexSQL
	column, value string
	update        string
}

// NewTermsInRow is the index whose entries are a column of the records'
// rows, "terms": column is the docid's, value its SQL value, one
// placeholder bound to the record's slot (DocSlot), to which the value
// adds a sequence of its own.
func NewTermsInRow(column, value string, q IndexSQL) SearchIndex {
	return &termsInRow{IndexSQL: q, column: column, value: value,
		update: `UPDATE records SET body = ?, seq = ?, terms = ? WHERE conversation = ? AND id = ?`}
}

func (t *termsInRow) docIDColumn() string   { return t.column }
func (t *termsInRow) docIDValue() string    { return t.value }
func (t *termsInRow) insertColumns() string { return ", " + t.column + ", terms" }
func (t *termsInRow) insertValues() string  { return ", " + t.value + ", ?" }
func (*termsInRow) termsSet() string        { return ", terms = ?" }
func (t *termsInRow) updateBody() string    { return t.update }

func (*termsInRow) termsArg(args []any, terms string) []any { return append(args, terms) }

func (*termsInRow) rowTerms(terms func() (string, error)) (string, error) { return terms() }

// docID: the slot; the database adds its sequence.
func (*termsInRow) docID(_ context.Context, _ conn, _ *docIDs, ms int64) (int64, error) {
	return DocSlot(ms), nil
}

func (*termsInRow) prime(context.Context, conn, *docIDs, string, ...any) error { return nil }

// The row's INSERT or UPDATE wrote the entries, its DELETE deletes them.
func (*termsInRow) added(context.Context, conn, ...int64) error         { return nil }
func (*termsInRow) forked(context.Context, conn, string) error          { return nil }
func (*termsInRow) add(context.Context, conn, []entry) error            { return nil }
func (*termsInRow) unindex(context.Context, conn, string, ...any) error { return nil }
func (*termsInRow) remove(context.Context, conn, string, ...any) error  { return nil }
func (*termsInRow) behind(context.Context, conn) (IndexState, error)    { return IndexState{}, nil }
func (*termsInRow) check(context.Context, *Store) error                 { return nil }
func (*termsInRow) merge(context.Context, *Store, int) (int, error)     { return 0, nil }
func (*termsInRow) ranges(context.Context, conn, *searchRange) ([]*searchRange, error) {
	return nil, nil
}

func (*termsInRow) catchUp(context.Context, *Store, func(done, total int64), time.Duration) (int64, error) {
	return 0, nil
}
