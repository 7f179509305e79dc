package sqlstore

// The index cursor, where the index is a table of its own (SQLite): writes
// store records only, and the index catches up later (IndexSearch), from
// search_cursor.indexed, the highest docid of the in-order range it holds,
// and search_pending, the other records it does not hold yet. A record is
// unindexed when its docid is above the cursor (a record of the in-order
// range written since) or pending (a record with a slot docid, or one
// whose text changed after it was indexed: its old entry went then).
// Search reads the index for the others and scans the unindexed ones
// itself (search.go), so it finds every record whatever the index holds.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// separateIndex reports whether d's index is a table of its own, kept by
// the cursor; where the terms are in the row, every write writes them.
func separateIndex(d Dialect) bool { return !d.TermsInRow() }

// sqlIndexed is the condition on a record's docid (col) that it is indexed.
func sqlIndexed(col string) string {
	return col + ` <= (SELECT indexed FROM search_cursor) AND ` + col + ` NOT IN (SELECT docid FROM search_pending)`
}

// inTail reports whether a new record of docid is in the unindexed tail
// of the in-order range: the docids the allocator gives there are above
// the cursor (docIDs.arg). Any other new record goes to search_pending.
func inTail(d Dialect, docid int64) bool {
	base := d.InOrderDocIDs()
	return base > 0 && docid >= base
}

// pendNew marks new records of the docids given unindexed: those outside
// the in-order tail go to search_pending.
func pendNew(ctx context.Context, tx conn, docids ...int64) error {
	if !separateIndex(tx.d) {
		return nil
	}
	var b strings.Builder
	for _, d := range docids {
		if inTail(tx.d, d) {
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

// unindexWhere makes the records matching where unindexed, before their
// text or docid changes: the index entries of those indexed go (deleted
// with the text their bodies still make), and they join search_pending.
func unindexWhere(ctx context.Context, tx conn, where string, args ...any) error {
	if !separateIndex(tx.d) {
		return nil
	}
	col := tx.d.DocIDColumn()
	indexed := `(` + where + `) AND ` + sqlIndexed(col)
	if _, err := tx.ExecContext(ctx, tx.d.IndexDeleteWhere(indexed), args...); err != nil {
		return fmt.Errorf("unindex records: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO search_pending (docid) SELECT `+col+` FROM records
		WHERE (`+where+`) AND `+col+` <= (SELECT indexed FROM search_cursor) ON CONFLICT DO NOTHING`, args...); err != nil {
		return fmt.Errorf("unindex records: %w", err)
	}
	return nil
}

// forgetPending removes the records matching where, about to be deleted
// or to take another docid, from search_pending: nothing when it is empty.
func forgetPending(ctx context.Context, tx conn, where string, args ...any) error {
	var any int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM search_pending LIMIT 1`).Scan(&any)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read pending records: %w", err)
	}
	col := tx.d.DocIDColumn()
	if _, err := tx.ExecContext(ctx, `DELETE FROM search_pending WHERE docid IN (SELECT `+col+` FROM records WHERE `+where+`)`, args...); err != nil {
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

// IndexState is what the index has not caught up with.
type IndexState struct {
	// Tail is how many records of the in-order range were written since
	// the index caught up (an upper bound: docids deleted since count),
	// Pending how many others.
	Tail, Pending int64
}

// Behind is how many records the index lacks (at most).
func (st IndexState) Behind() int64 { return st.Tail + st.Pending }

// indexState reads it in tx.
func indexState(ctx context.Context, tx conn) (IndexState, error) {
	var st IndexState
	if !separateIndex(tx.d) {
		return st, nil
	}
	col := tx.d.DocIDColumn()
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

// IndexBehind reports what the index has not caught up with.
func (s *Store) IndexBehind(ctx context.Context) (IndexState, error) {
	var st IndexState
	err := s.inSnapshot(ctx, func(tx conn) error {
		var err error
		st, err = indexState(ctx, tx)
		return err
	})
	return st, err
}

// indexChunk is how many records one transaction of IndexSearch indexes:
// a few segments of FTS5's (maxHeldEntries each), committed together, so
// that an interrupted catch-up keeps what it did and a writer waits for
// at most one chunk.
const indexChunk = 65536

// indexPage is how many records a read of IndexSearch's takes.
const indexPage = 4096

// IndexSearch brings the index up to date: the records written since it
// last caught up, oldest first, in transactions of indexChunk records,
// each moving the cursor past what it indexed. progress, when set, hears
// how many records were indexed and how many there were to index (an
// estimate, which it may pass). It returns how many it indexed. Where the
// terms are in the row there is nothing to do. The store must be
// writable: a store opened to read only (see SetReadOnly) fails.
func (s *Store) IndexSearch(ctx context.Context, progress func(done, total int64)) (int64, error) {
	return s.indexSearch(ctx, progress, 0)
}

// searchLockWait is how long the index catching up for a search waits for
// another writer's lock before each transaction: the search goes on
// without (reading what the index lacks) rather than queue behind an
// import for the store's whole busy timeout.
const searchLockWait = 250 * time.Millisecond

// indexSearch is IndexSearch; with wait > 0 each transaction waits at
// most that for another writer (SQLite's busy timeout, on a connection of
// its own).
func (s *Store) indexSearch(ctx context.Context, progress func(done, total int64), wait time.Duration) (int64, error) {
	if !separateIndex(s.d) {
		return 0, nil
	}
	if s.readOnly {
		return 0, errReadOnly
	}
	db := s.db
	if s.cache != nil {
		db = s.cache
	}
	st, err := s.IndexBehind(ctx)
	if err != nil {
		return 0, err
	}
	total := st.Behind()
	if total == 0 {
		return 0, nil
	}
	run := func(fn func(conn) error) error { return s.runTxOn(ctx, db, nil, fn) }
	if wait > 0 {
		c, err := db.Conn(ctx)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		var was int64
		if err := c.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&was); err != nil {
			return 0, err
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, wait.Milliseconds())); err != nil {
			return 0, err
		}
		defer c.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA busy_timeout = %d`, was))
		run = func(fn func(conn) error) error {
			s.writeMu.Lock()
			defer s.writeMu.Unlock()
			tx, err := c.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			if err := fn(conn{tx, s.d}); err != nil {
				tx.Rollback()
				return err
			}
			return tx.Commit()
		}
	}
	var done int64
	if progress != nil {
		progress(0, total)
	}
	for {
		n, more := 0, false
		err := run(func(tx conn) error {
			var err error
			n, more, err = indexSome(ctx, tx)
			return err
		})
		if err != nil {
			return done, fmt.Errorf("index: %w", err)
		}
		done += int64(n)
		if progress != nil {
			total = max(total, done)
			if !more {
				total = done // the estimate counted docids deleted since
			}
			progress(done, total)
		}
		if !more {
			s.log().Info("indexed", "records", done)
			return done, nil
		}
	}
}

// errReadOnly: the store was opened to read only.
var errReadOnly = errors.New("the store is open to read only")

// indexSome indexes up to indexChunk unindexed records in tx, the in-order
// tail first, then the pending ones, and reports whether any are left.
// Each page's entries are made on another goroutine while the next page
// is read and the entries before it are written: the tokenizer is a third
// of what indexing costs.
func indexSome(ctx context.Context, tx conn) (int, bool, error) {
	col := tx.d.DocIDColumn()
	cur, err := indexCursor(ctx, tx)
	if err != nil {
		return 0, false, err
	}
	ix := indexer{ctx: ctx, tx: tx}
	defer ix.wait()
	tail := `SELECT ` + col + `, conversation, body FROM records WHERE ` + col + ` > ? ORDER BY ` + col + ` LIMIT ?`
	n := 0
	for n < indexChunk {
		k, last, err := ix.page(tail, cur, min(indexPage, indexChunk-n))
		if err != nil {
			return n, false, err
		}
		if k == 0 {
			break
		}
		n += k
		cur = last
	}
	if err := ix.flush(); err != nil {
		return n, false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE search_cursor SET indexed = max(indexed, ?)`, cur); err != nil {
		return n, false, fmt.Errorf("move the index cursor: %w", err)
	}
	if n == indexChunk {
		return n, true, nil
	}
	// The pending records, by docid; those read leave search_pending.
	pend := `SELECT p.docid, r.conversation, r.body FROM search_pending p CROSS JOIN records r ON r.` + col + ` = p.docid
		WHERE p.docid > ? ORDER BY p.docid LIMIT ?`
	after := int64(-1) << 63
	for n < indexChunk {
		k, last, err := ix.page(pend, after, min(indexPage, indexChunk-n))
		if err != nil {
			return n, false, err
		}
		if k == 0 {
			break
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_pending WHERE docid <= ?`, last); err != nil {
			return n, false, fmt.Errorf("forget pending records: %w", err)
		}
		n += k
		after = last
	}
	if err := ix.flush(); err != nil {
		return n, false, err
	}
	if n < indexChunk {
		// Pending docids of no record (none should be) go too.
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_pending WHERE docid NOT IN (SELECT `+col+` FROM records)`); err != nil {
			return n, false, fmt.Errorf("forget pending records: %w", err)
		}
		return n, false, nil
	}
	return n, true, nil
}

// indexer makes and writes the entries of the pages of records it reads
// in one transaction: a page's entries are made on another goroutine
// (making) while the next is read; they are written maxHeldEntries at a
// time.
type indexer struct {
	ctx    context.Context
	tx     conn
	es     []entry
	held   int
	making *madePage
}

// madePage is a page of records whose entries a goroutine makes.
type madePage struct {
	docids []int64
	convs  []string
	bodies [][]byte
	es     []entry
	held   int
	err    error
	done   chan struct{}
}

// page reads a page of q's rows (docid, conversation, body; after and
// limit bound to its placeholders), hands it to the goroutine, and
// returns how many and the last docid.
func (ix *indexer) page(q string, after int64, limit int) (int, int64, error) {
	rows, err := ix.tx.QueryContext(ix.ctx, q, after, limit)
	if err != nil {
		return 0, 0, err
	}
	p := &madePage{done: make(chan struct{})}
	last := after
	for rows.Next() {
		var conv string
		var body []byte
		if err := rows.Scan(&last, &conv, &body); err != nil {
			rows.Close()
			return 0, 0, err
		}
		p.docids = append(p.docids, last)
		p.convs = append(p.convs, conv)
		p.bodies = append(p.bodies, body)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	if len(p.docids) == 0 {
		return 0, last, nil
	}
	// The page before is collected (and written) while this one is made.
	prev := ix.making
	ix.making = p
	go ix.make(p)
	if err := ix.collectPage(prev); err != nil {
		return 0, 0, err
	}
	return len(p.docids), last, nil
}

// make makes p's entries (quoted as JSON strings, for index). Two pages
// may be made at once: each has its own termer.
func (ix *indexer) make(p *madePage) {
	defer close(p.done)
	var t termer
	var quote []byte
	p.es = make([]entry, 0, len(p.docids))
	for i, docid := range p.docids {
		text, err := t.stored(ix.tx.d, p.convs[i], p.bodies[i])
		if err != nil {
			p.err = fmt.Errorf("record at %d: %w", docid, err)
			return
		}
		quote = appendJSONText(quote[:0], text)
		p.es = append(p.es, entry{docid: docid, quoted: string(quote)})
		p.held += len(text)
	}
}

// collect waits for the page being made and holds its entries.
func (ix *indexer) collect() error {
	p := ix.making
	ix.making = nil
	return ix.collectPage(p)
}

// collectPage waits for p (nil: none) and holds its entries, writing what
// it holds once that is over maxHeldEntries.
func (ix *indexer) collectPage(p *madePage) error {
	if p == nil {
		return nil
	}
	<-p.done
	if p.err != nil {
		return p.err
	}
	ix.es = append(ix.es, p.es...)
	ix.held += p.held
	if ix.held > maxHeldEntries {
		return ix.write()
	}
	return nil
}

func (ix *indexer) write() error {
	if err := index(ix.ctx, ix.tx, ix.es); err != nil {
		return err
	}
	ix.es, ix.held = ix.es[:0], 0
	return nil
}

// flush writes every entry, the page being made included.
func (ix *indexer) flush() error {
	if err := ix.collect(); err != nil {
		return err
	}
	return ix.write()
}

// wait lets the goroutine end (on an error, before the transaction does).
func (ix *indexer) wait() {
	if ix.making != nil {
		<-ix.making.done
	}
}

// SetReadOnly makes the store write nothing, not even what a read may
// keep for later (the index catching up, list's figures): a search scans
// what the index has not caught up with. For a store on a read-only
// mount, or opened so on purpose.
func (s *Store) SetReadOnly() {
	s.readOnly = true
	if s.cache != nil {
		s.cache.Close()
		s.cache = nil
	}
}
