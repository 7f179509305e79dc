package sqlstore

// Search: the dialect's part, the search itself, and the migration's Go
// step that indexes what an older convo stored (searchindex.go: how every
// write keeps the index).

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
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
	// write it, and IndexDeleteWhere removes the entries of records
	// about to be deleted (see deleteRecords).
	TermsInRow() bool
	// IndexText is a record's index entry: its terms as the index takes
	// them, with what else it narrows by (role, conversation).
	IndexText(terms []string, role, conv string) string
	// IndexInsert is the statement adding entries: its one placeholder
	// is bound to a JSON array of [key, text] pairs (one statement for
	// any number: FTS5 writes what it holds at each statement's start).
	// IndexDelete is the one removing the entry of key ?1, which was
	// written with the text ?2 (the index keeps no copy); IndexKey is a
	// docid's key.
	IndexInsert() string
	IndexDelete() string
	// IndexDeleteWhere is the statement removing the entries of the
	// records matching where ("" where the terms are in the row).
	IndexDeleteWhere(where string) string
	IndexKey(docid int64) int64
	// IndexEntries reads every (key, term) the index holds, after setup
	// on the same connection, where it is a table of its own ("", ""
	// otherwise): CheckSearchIndex's.
	IndexEntries() (setup, query string)
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
		if es = append(es, entry{docid: doc, text: text}); len(es) == 256 {
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
