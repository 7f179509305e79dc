package sqlstore

// Search: the index every write keeps (terms and docid), the search itself,
// and the migration's Go step that indexes what an older convo stored.

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// SearchDialect is what each database does its own way for search: the
// index is its own (FTS5, a tsvector under GIN), the terms in it are
// pkg/search's for both.
type SearchDialect interface {
	// DocIDColumn is the column ordering records newest first for search:
	// SQLite's rowid, PostgreSQL's docid.
	DocIDColumn() string
	// DocIDValue is the SQL value of a new record's docid, with one
	// placeholder: bound to the docid itself where AllocatesDocIDs, to
	// the record's slot (DocSlot) where the value adds its own sequence.
	DocIDValue() string
	AllocatesDocIDs() bool
	// TermsInRow: the terms are a column of the record's row
	// (PostgreSQL's tsvector), written with it. Otherwise the index is
	// a table of its own (SQLite's FTS5), IndexInsert and IndexDelete
	// write it, and a record's deletion removes its entry (a trigger).
	TermsInRow() bool
	// IndexText is a record's index entry: its terms as the index takes
	// them, with what else it narrows by (role, conversation).
	IndexText(terms []string, role, conv string) string
	// IndexInsert is the statement adding n entries, (key, text) each;
	// IndexDelete the one removing the entry of key ?; IndexKey is a
	// docid's key.
	IndexInsert(n int) string
	IndexDelete() string
	IndexKey(docid int64) int64
	// SearchQuery is the statement reading up to ?4 records matching x (and
	// conv and role, when set), with docid in [?3, ?2], newest first: columns
	// docid, conversation, id, pos, sub, seq, role, created, body. match is
	// bound at ?1, more at ?5 on. Unless bounded, the range holds every
	// docid and the statement may leave it out. sparse is what Sparse said
	// of the count SearchProbe's statement (match at ?1, more at ?2 on;
	// "": none) read: the statement may read the matches another way.
	SearchQuery(x search.Index, conv, role string, bounded, sparse bool) (query string, match any, more []any)
	SearchProbe(x search.Index, conv, role string) (query string, match any, more []any)
	Sparse(matches int64) bool
}

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

// searchPage is the first page of candidates a search reads; each next
// page is twice as large, up to searchPageMax.
const (
	searchPage    = 32
	searchPageMax = 4096
)

// Search reads the index's candidates page by page, newest first, and keeps
// those search.Match holds (the index finds exactly the matches unless a
// phrase must be checked), until o.Limit.
func (s *Store) Search(ctx context.Context, o store.SearchOptions, fn func(store.SearchHit) error) error {
	if o.Query == nil {
		return fmt.Errorf("search: no query")
	}
	x := o.Query.Index()
	bounded := o.Since > 0 || o.Until > 0
	hi := DocSlot(maxSlotMillis) + 1<<docShift - 1
	if o.Until > 0 {
		hi = DocSlot(o.Until) - 1
	}
	lo := int64(0)
	if o.Since > 0 {
		lo = DocSlot(o.Since)
	}
	page := searchPage
	if o.Limit > 0 && o.Query.Exact() {
		page = min(max(o.Limit+1, searchPage), searchPageMax)
	}
	found := 0
	return s.inSnapshot(ctx, func(tx conn) error {
		sparse := false
		if probe, match, more := s.d.SearchProbe(x, o.Conversation, o.Role); probe != "" {
			var n int64
			if err := tx.QueryRowContext(ctx, probe, append([]any{match}, more...)...).Scan(&n); err != nil {
				return fmt.Errorf("search: %w", err)
			}
			sparse = s.d.Sparse(n)
		}
		query, match, more := s.d.SearchQuery(x, o.Conversation, o.Role, bounded, sparse)
		// Docids may repeat (PostgreSQL): the next page starts at the last
		// docid again and skips the rows of it already read.
		seen := map[[2]string]bool{}
		for {
			args := append([]any{match, hi, lo, page}, more...)
			rows, err := tx.QueryContext(ctx, query, args...)
			if err != nil {
				return fmt.Errorf("search: %w", err)
			}
			n, last := 0, int64(-1)
			var lastKeys [][2]string
			stop := false
			for rows.Next() {
				var h store.SearchHit
				var docid int64
				var body sql.RawBytes
				var id string
				if err := rows.Scan(&docid, &h.Conversation, &id, &h.Pos, &h.Sub, &h.Seq, &h.Role, &h.Created, &body); err != nil {
					rows.Close()
					return fmt.Errorf("search: %w", err)
				}
				n++
				key := [2]string{h.Conversation, id}
				if docid != last {
					last, lastKeys = docid, lastKeys[:0]
				}
				lastKeys = append(lastKeys, key)
				if docid == hi && seen[key] {
					continue
				}
				if !keep(o, h) {
					continue
				}
				rec, err := parseStored(body)
				if err != nil {
					rows.Close()
					return fmt.Errorf("search: record %s: %w", id, err)
				}
				h.Doc = search.NewDoc(search.Text(&rec))
				if !o.Query.Match(h.Doc) {
					continue
				}
				h.Body = body
				if err := fn(h); err != nil {
					rows.Close()
					return err
				}
				if found++; o.Limit > 0 && found >= o.Limit {
					stop = true
					break
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("search: %w", err)
			}
			if stop || n < page {
				return nil
			}
			if last == hi {
				page = min(page*2, 1<<30) // one docid filled the page: read more of it
			} else {
				page = min(page*2, max(page, searchPageMax))
				clear(seen)
			}
			hi = last
			if !bounded { // the next pages start below the last docid read
				bounded = true
				query, match, more = s.d.SearchQuery(x, o.Conversation, o.Role, true, sparse)
			}
			for _, k := range lastKeys {
				seen[k] = true
			}
		}
	})
}

// keep holds a candidate to o's filters exactly (the index's docid range
// cannot tell times past maxSlotMillis apart).
func keep(o store.SearchOptions, h store.SearchHit) bool {
	return (o.Conversation == "" || h.Conversation == o.Conversation) && (o.Role == "" || h.Role == o.Role) &&
		(o.Since == 0 || h.Created >= o.Since) && (o.Until == 0 || h.Created < o.Until)
}

// BackfillSearch is the search migration's Go step, run in the migration's
// transaction: it gives every record its docid and terms, oldest first, so
// that docids of one millisecond keep the records' order.
func BackfillSearch(ctx context.Context, tx *sql.Tx, d Dialect) error {
	c := conn{tx, d}
	col := d.DocIDColumn()
	type ref struct {
		conv, id string
		created  int64
	}
	var refs []ref
	rows, err := c.QueryContext(ctx, `SELECT conversation, id, created FROM records ORDER BY created, conversation, pos, sub`)
	if err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	for rows.Next() {
		var r ref
		if err := rows.Scan(&r.conv, &r.id, &r.created); err != nil {
			rows.Close()
			return fmt.Errorf("index records: %w", err)
		}
		refs = append(refs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	var ids docIDs
	var t termer
	set := `UPDATE records SET ` + col + ` = ` + d.DocIDValue() + ` WHERE conversation = ? AND id = ?`
	if d.TermsInRow() {
		set = `UPDATE records SET ` + col + ` = ` + d.DocIDValue() + `, terms = ? WHERE conversation = ? AND id = ?`
	}
	var es []entry
	for _, r := range refs {
		var body []byte
		if err := c.QueryRowContext(ctx, `SELECT body FROM records WHERE conversation = ? AND id = ?`, r.conv, r.id).Scan(&body); err != nil {
			return fmt.Errorf("index record %s: %w", r.id, err)
		}
		text, err := t.stored(d, r.conv, body)
		if err != nil {
			return fmt.Errorf("index record %s: %w", r.id, err)
		}
		doc, err := ids.arg(ctx, c, r.created)
		if err != nil {
			return err
		}
		args := []any{doc}
		if d.TermsInRow() {
			args = append(args, text)
		}
		if _, err := c.ExecContext(ctx, set, append(args, r.conv, r.id)...); err != nil {
			return fmt.Errorf("index record %s: %w", r.id, err)
		}
		if es = append(es, entry{doc, text}); len(es) == 256 {
			if err := index(ctx, c, es); err != nil {
				return err
			}
			es = es[:0]
		}
	}
	if err := index(ctx, c, es); err != nil {
		return err
	}
	return nil
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
