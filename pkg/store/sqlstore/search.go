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
	// InOrderDocIDs is the first docid of the in-order range (0: none): a
	// record created at or after the newest record of that range takes
	// the docid after it, so that consecutive records' docids differ by
	// one, not by their milliseconds shifted (an FTS5 doclist writes the
	// differences: 1 byte each, not 5). Other records take their slot's
	// docid (DocSlot), below the range. Search reads both ranges newest
	// first and merges them by creation time.
	InOrderDocIDs() int64
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
// phrase must be checked), until o.Limit. Where the dialect has an
// in-order range of docids, it and the slots below it are read side by
// side, each newest first, and merged by creation time.
func (s *Store) Search(ctx context.Context, o store.SearchOptions, fn func(store.SearchHit) error) error {
	if o.Query == nil {
		return fmt.Errorf("search: no query")
	}
	if separateIndex(s.d) && !s.readOnly {
		// The index catches up first, in transactions of its own; a store
		// this process cannot write (a read-only file or mount), or whose
		// lock another writer holds, is read as it is, what the index
		// lacks scanned below.
		if _, err := s.indexSearch(ctx, o.Progress, searchLockWait); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.log().Info("search: the index did not catch up; reading the records it lacks", "error", err.Error())
		}
	}
	x := o.Query.Index()
	page := searchPage
	if o.Limit > 0 && o.Query.Exact() {
		page = min(max(o.Limit+1, searchPage), searchPageMax)
	}
	return s.inSnapshot(ctx, func(tx conn) error {
		sparse := false
		if probe, match, more := s.d.SearchProbe(x, o.Conversation, o.Role); probe != "" {
			var n int64
			if err := tx.QueryRowContext(ctx, probe, append([]any{match}, more...)...).Scan(&n); err != nil {
				return fmt.Errorf("search: %w", err)
			}
			sparse = s.d.Sparse(n)
		}
		slots := &searchRange{s: s, tx: tx, o: o, x: x, page: page, sparse: sparse,
			lo: 0, hi: DocSlot(maxSlotMillis) + 1<<docShift - 1, bounded: o.Since > 0 || o.Until > 0}
		if o.Until > 0 {
			slots.hi = DocSlot(o.Until) - 1
		}
		if o.Since > 0 {
			slots.lo = DocSlot(o.Since)
		}
		ranges := []*searchRange{slots}
		if base := s.d.InOrderDocIDs(); base > 0 {
			// A store written in order has no slot docids: no FTS5 query
			// need look for them.
			var top sql.NullInt64
			if err := tx.QueryRowContext(ctx, `SELECT max(`+s.d.DocIDColumn()+`) FROM records WHERE `+s.d.DocIDColumn()+` < ?`, base).Scan(&top); err != nil {
				return fmt.Errorf("search: %w", err)
			}
			slots.hi = min(slots.hi, top.Int64)
			if !top.Valid {
				slots.hi = -1
			}
			lo, hi, err := inOrderBounds(ctx, tx, base, o.Since, o.Until)
			if err != nil {
				return err
			}
			ranges = append(ranges, &searchRange{s: s, tx: tx, o: o, x: x, page: page, sparse: sparse,
				lo: lo, hi: hi, bounded: true})
			if separateIndex(s.d) {
				// What the index does not hold (searchcursor.go) is read
				// record by record: the in-order range above the cursor,
				// and the pending records of each range.
				cur, err := indexCursor(ctx, tx)
				if err != nil {
					return fmt.Errorf("search: %w", err)
				}
				col := s.d.DocIDColumn()
				cols := `r.` + col + `, r.conversation, r.id, r.pos, r.sub, r.seq, r.role, r.created, r.body`
				tail := `SELECT ` + cols + ` FROM records r WHERE r.` + col + ` <= ?1 AND r.` + col + ` >= ?2 ORDER BY r.` + col + ` DESC LIMIT ?3`
				pending := `SELECT ` + cols + ` FROM search_pending p CROSS JOIN records r ON r.` + col + ` = p.docid
					WHERE p.docid <= ?1 AND p.docid >= ?2 ORDER BY p.docid DESC LIMIT ?3`
				ranges = append(ranges,
					&searchRange{s: s, tx: tx, o: o, x: x, page: page, lo: max(lo, cur+1), hi: hi, scan: tail},
					&searchRange{s: s, tx: tx, o: o, x: x, page: page, lo: lo, hi: min(hi, cur), scan: pending},
					&searchRange{s: s, tx: tx, o: o, x: x, page: page, lo: slots.lo, hi: slots.hi, scan: pending})
			}
		}
		found := 0
		for {
			// The range whose next match was created last goes first.
			var next *searchRange
			for _, r := range ranges {
				ok, err := r.peek(ctx)
				if err != nil {
					return err
				}
				if ok && (next == nil || r.buf[0].Created > next.buf[0].Created) {
					next = r
				}
			}
			if next == nil {
				return nil
			}
			h := next.buf[0]
			next.buf = next.buf[1:]
			if err := fn(h); err != nil {
				return err
			}
			if found++; o.Limit > 0 && found >= o.Limit {
				return nil
			}
		}
	})
}

// inOrderBounds is the docid range [lo, hi] of the in-order range from
// base whose records were created in [since, until) (0: no bound):
// creation times rise with docids there, so each bound is a binary search.
func inOrderBounds(ctx context.Context, tx conn, base, since, until int64) (lo, hi int64, err error) {
	col := tx.d.DocIDColumn()
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

// maxHeldHits bounds the bytes of record bodies a range holds: its matches
// wait there until the merge takes them.
const maxHeldHits = 4 << 20

// searchRange reads the matches with docid in [lo, hi], newest first, a
// page at a time.
type searchRange struct {
	s               *Store
	tx              conn
	o               store.SearchOptions
	x               search.Index
	lo, hi          int64
	page            int
	bounded, sparse bool
	// scan, when set, is the statement reading the range's records that
	// the index does not hold, every one a candidate: docid in [?2, ?1],
	// newest first, up to ?3, the columns of SearchQuery's.
	scan string
	// seen: docids may repeat (PostgreSQL): the next page starts at the
	// last docid again and skips the rows of it already read.
	seen map[[2]string]bool
	buf  []store.SearchHit
	done bool
}

// peek reports whether the range has a next match, reading pages until
// it holds one or has none left.
func (r *searchRange) peek(ctx context.Context) (bool, error) {
	for len(r.buf) == 0 && !r.done {
		if err := r.read(ctx); err != nil {
			return false, err
		}
	}
	return len(r.buf) > 0, nil
}

// read reads the next page of candidates and holds their matches.
func (r *searchRange) read(ctx context.Context) error {
	if r.lo > r.hi {
		r.done = true
		return nil
	}
	if r.seen == nil {
		r.seen = map[[2]string]bool{}
	}
	r.buf = nil // not the emptied one: its array holds the bodies taken
	var rows *sql.Rows
	var err error
	if r.scan != "" {
		rows, err = r.tx.QueryContext(ctx, r.scan, r.hi, r.lo, r.page)
	} else {
		query, match, more := r.s.d.SearchQuery(r.x, r.o.Conversation, r.o.Role, r.bounded, r.sparse)
		rows, err = r.tx.QueryContext(ctx, query, append([]any{match, r.hi, r.lo, r.page}, more...)...)
	}
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	n, last, held, full := 0, int64(-1), 0, false
	var lastKeys [][2]string
	for !full && rows.Next() {
		var h store.SearchHit
		var docid int64
		var body []byte
		var id string
		if err := rows.Scan(&docid, &h.Conversation, &id, &h.Pos, &h.Sub, &h.Seq, &h.Role, &h.Created, &body); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		n++
		key := [2]string{h.Conversation, id}
		if docid != last {
			last, lastKeys = docid, lastKeys[:0]
		}
		lastKeys = append(lastKeys, key)
		if docid == r.hi && r.seen[key] || !keep(r.o, h) {
			continue
		}
		rec, err := parseStored(body)
		if err != nil {
			return fmt.Errorf("search: record %s: %w", id, err)
		}
		h.Doc = search.NewDoc(search.Text(&rec))
		if !r.o.Query.Match(h.Doc) {
			continue
		}
		h.Body = body
		r.buf = append(r.buf, h)
		// A page's matches wait for the merge: their bodies are held up
		// to maxHeldHits bytes, and the page ends there.
		held += len(body)
		full = held >= maxHeldHits
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if n < r.page && !full {
		r.done = true
		return nil
	}
	// The next page starts at the last docid read (also when the bodies
	// held ended this one).
	switch {
	case last != r.hi:
		clear(r.seen)
		if !full {
			r.page = min(r.page*2, max(r.page, searchPageMax))
		}
	case !full:
		r.page = min(r.page*2, 1<<30) // one docid filled the page: read more of it
	}
	r.hi = last
	r.bounded = true // the next pages start below the last docid read
	for _, k := range lastKeys {
		r.seen[k] = true
	}
	return nil
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
	ids := docIDs{noCursor: true}
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
