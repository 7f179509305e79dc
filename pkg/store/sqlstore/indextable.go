package sqlstore

// An index table of its own (SQLite's FTS5), kept by a cursor: writes
// store records only, and the index catches up later (IndexSearch), from
// search_cursor.indexed, the highest docid of the in-order range it holds,
// and search_pending, the other records it does not hold yet. A record is
// unindexed when its docid is above the cursor (a record of the in-order
// range written since) or pending (a record with a slot docid, or one
// whose text changed after it was indexed: its old entry went then).
// Search reads the index for the others and scans the unindexed ones
// itself (indexranges.go), so it finds every record whatever the index
// holds. Docids are allocated here (docids.go), in the in-order range
// where they can be.

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// IndexTableSQL is the SQL of an index table of its own.
type IndexTableSQL interface {
	IndexSQL
	// IndexInsert is the statement adding entries: its one placeholder
	// is bound to a JSONB object of key to text (one statement for any
	// number: FTS5 writes what it holds at each statement's start);
	// IndexKey is a docid's key.
	IndexInsert() string
	IndexKey(docid int64) int64
	// IndexDeleteWhere is the statement removing the entries of the
	// records matching where.
	IndexDeleteWhere(where string) string
	// IndexEntries reads every (key, term) the index holds, after setup
	// on the same connection: CheckSearchIndex's.
	IndexEntries() (setup, query string)
	// IndexSegments reads how many segments the index is in (a search
	// reads each); IndexMerge merges them into one.
	IndexSegments() string
	IndexMerge() string
}

// indexTable is the SearchIndex of an index table kept by the cursor.
type indexTable struct {
	IndexTableSQL
	column string
	// inOrder is the first docid of the in-order range: a record created
	// at or after the newest record of that range takes the docid after
	// it, so that consecutive records' docids differ by one, not by their
	// milliseconds shifted (an FTS5 doclist writes the differences: 1 byte
	// each, not 5). Other records take their slot's docid (DocSlot), below
	// the range. Search reads both ranges newest first and merges them by
	// creation time.
	inOrder int64
	update  string
}

// NewIndexTable is the index table q writes, of the records whose docid
// is column: docids allocated here, those of the in-order range from
// inOrder (above every slot docid).
func NewIndexTable(column string, inOrder int64, q IndexTableSQL) SearchIndex {
	return &indexTable{IndexTableSQL: q, column: column, inOrder: inOrder,
		update: `UPDATE records SET body = ?, seq = ? WHERE conversation = ? AND id = ?`}
}

func (t *indexTable) docIDColumn() string                           { return t.column }
func (*indexTable) docIDValue() string                              { return "?" }
func (t *indexTable) insertColumns() string                         { return ", " + t.column }
func (*indexTable) insertValues() string                            { return ", ?" }
func (*indexTable) termsSet() string                                { return "" }
func (t *indexTable) updateBody() string                            { return t.update }
func (*indexTable) termsArg(args []any, _ string) []any             { return args }
func (*indexTable) rowTerms(func() (string, error)) (string, error) { return "", nil }

func (t *indexTable) docID(ctx context.Context, tx conn, a *docIDs, ms int64) (int64, error) {
	return a.alloc(ctx, tx, t, ms)
}

func (t *indexTable) prime(ctx context.Context, tx conn, a *docIDs, where string, args ...any) error {
	return a.primeFor(ctx, tx, t, where, args...)
}

// sqlIndexed is the condition on a record's docid that it is indexed.
func (t *indexTable) sqlIndexed() string {
	col := t.column
	return col + ` <= (SELECT indexed FROM search_cursor) AND ` + col + ` NOT IN (SELECT docid FROM search_pending)`
}

// inTail reports whether a new record of docid is in the unindexed tail
// of the in-order range: the docids the allocator gives there are above
// the cursor (docIDs.alloc). Any other new record goes to search_pending.
func (t *indexTable) inTail(docid int64) bool { return docid >= t.inOrder }

// added marks new records of the docids given unindexed: those outside
// the in-order tail go to search_pending.
func (t *indexTable) added(ctx context.Context, tx conn, docids ...int64) error {
	var b strings.Builder
	for _, d := range docids {
		if t.inTail(d) {
			continue
		}
		if b.Len() == 0 {
			b.WriteByte('[')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	if b.Len() == 0 {
		return nil
	}
	b.WriteByte(']')
	if _, err := tx.ExecContext(ctx, `INSERT INTO search_pending (docid) SELECT value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`, b.String()); err != nil {
		return fmt.Errorf("mark records unindexed: %w", err)
	}
	return nil
}

// forked marks the records of conv below the in-order range pending.
func (t *indexTable) forked(ctx context.Context, tx conn, conv string) error {
	q := `INSERT INTO search_pending (docid) SELECT ` + t.column + ` FROM records WHERE conversation = ? AND ` + t.column + ` < ?`
	if _, err := tx.ExecContext(ctx, q+` ON CONFLICT DO NOTHING`, conv, t.inOrder); err != nil {
		return fmt.Errorf("mark records unindexed: %w", err)
	}
	return nil
}

// add writes entries, in one statement.
func (t *indexTable) add(ctx context.Context, tx conn, es []entry) error {
	if len(es) == 0 {
		return nil
	}
	// Newest first: SQLite's entries are keyed by the docid negated, and
	// FTS5 writes what it holds to a new segment whenever a key comes
	// that is not above the last one.
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(b.docid, a.docid) })
	if _, err := tx.ExecContext(ctx, t.IndexInsert(), t.entriesJSONB(es)); err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	return nil
}

// entriesJSONB is es as one JSONB object (SQLite's binary JSON, which
// json_each reads without parsing text) of each key to its text: the keys
// TEXT elements (digits), the texts TEXTRAW ones, their bytes as they are
// (text JSON had to be escaped by Go and parsed again by SQLite: a tenth
// of a catch-up's clock). The elements go after room for the largest
// header, which is written in front of them once their size is known.
func (t *indexTable) entriesJSONB(es []entry) []byte {
	const room = 5
	n := room
	for _, e := range es {
		n += 26 + len(e.text) // a key of 20 digits at most, two headers, the text
	}
	b := make([]byte, room, n)
	var key [24]byte
	for _, e := range es {
		k := strconv.AppendInt(key[:0], t.IndexKey(e.docid), 10)
		b = append(appendJSONBHeader(b, jsonbText, len(k)), k...)
		b = append(appendJSONBHeader(b, jsonbTextRaw, len(e.text)), e.text...)
	}
	h := appendJSONBHeader(nil, jsonbObject, len(b)-room)
	start := room - len(h)
	copy(b[start:], h)
	return b[start:]
}

// JSONB element types (sqlite.org/jsonb.html): the low four bits of an
// element's first byte.
const (
	jsonbText    = 7
	jsonbTextRaw = 10
	jsonbObject  = 12
)

// appendJSONBHeader appends the header of a JSONB element of type typ
// whose payload is n bytes: the size in the high four bits up to 11, else
// in the 1, 2 or 4 bytes after them (big-endian), the smallest that holds it.
func appendJSONBHeader(b []byte, typ byte, n int) []byte {
	switch {
	case n <= 11:
		return append(b, byte(n)<<4|typ)
	case n <= 0xff:
		return append(b, 12<<4|typ, byte(n))
	case n <= 0xffff:
		return append(b, 13<<4|typ, byte(n>>8), byte(n))
	}
	return append(b, 14<<4|typ, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// unindex makes the records matching where unindexed, before their text
// changes: the index entries of those indexed go (deleted with the text
// their bodies still make), and they join search_pending.
func (t *indexTable) unindex(ctx context.Context, tx conn, where string, args ...any) error {
	col := t.column
	indexed := `(` + where + `) AND ` + t.sqlIndexed()
	if _, err := tx.ExecContext(ctx, t.IndexDeleteWhere(indexed), args...); err != nil {
		return fmt.Errorf("unindex records: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO search_pending (docid) SELECT `+col+` FROM records
		WHERE (`+where+`) AND `+col+` <= (SELECT indexed FROM search_cursor) ON CONFLICT DO NOTHING`, args...); err != nil {
		return fmt.Errorf("unindex records: %w", err)
	}
	return nil
}

// remove: the entries of the records matching where go, and they leave
// search_pending. Those the index has not seen yet cost it nothing.
func (t *indexTable) remove(ctx context.Context, tx conn, where string, args ...any) error {
	q := t.IndexDeleteWhere(`(` + where + `) AND ` + t.sqlIndexed())
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("unindex records: %w", err)
	}
	return t.forgetPending(ctx, tx, where, args...)
}

// forgetPending removes the records matching where, about to be deleted
// or to take another docid, from search_pending: nothing when it is empty.
func (t *indexTable) forgetPending(ctx context.Context, tx conn, where string, args ...any) error {
	var any int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM search_pending LIMIT 1`).Scan(&any)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read pending records: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM search_pending WHERE docid IN (SELECT `+t.column+` FROM records WHERE `+where+`)`, args...); err != nil {
		return fmt.Errorf("forget pending records: %w", err)
	}
	return nil
}

// indexCursor reads the cursor: the highest in-order docid indexed.
func indexCursor(ctx context.Context, tx conn) (int64, error) {
	var c int64
	if err := tx.QueryRowContext(ctx, `SELECT indexed FROM search_cursor`).Scan(&c); err != nil {
		return 0, fmt.Errorf("read the index cursor: %w", err)
	}
	return c, nil
}

// behind reads the cursor's state in tx.
func (t *indexTable) behind(ctx context.Context, tx conn) (IndexState, error) {
	var st IndexState
	col := t.column
	var top sql.NullInt64
	var cur int64
	err := tx.QueryRowContext(ctx, `SELECT (SELECT max(`+col+`) FROM records), (SELECT indexed FROM search_cursor),
		(SELECT count(*) FROM search_pending)`).Scan(&top, &cur, &st.Pending)
	if err != nil {
		return st, fmt.Errorf("read the index cursor: %w", err)
	}
	if top.Valid && top.Int64 > cur {
		st.Tail = top.Int64 - cur
	}
	return st, nil
}
