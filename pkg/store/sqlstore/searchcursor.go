package sqlstore

// The index catching up, where it is a table of its own kept by the
// cursor (indextable.go): IndexSearch, and a search first.

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// IndexState is what the index has not caught up with.
type IndexState struct {
	// Tail is how many records of the in-order range were written since
	// the index caught up (an upper bound: docids deleted since count),
	// Pending how many others.
	Tail, Pending int64
}

// Behind is how many records the index lacks (at most).
func (st IndexState) Behind() int64 { return st.Tail + st.Pending }

// IndexBehind reports what the index has not caught up with.
func (s *Store) IndexBehind(ctx context.Context) (IndexState, error) {
	var st IndexState
	err := s.inSnapshot(ctx, func(tx conn) error {
		var err error
		st, err = s.ix().behind(ctx, tx)
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

// MergeSearchIndex merges the search index into one piece where it is in
// more than most (an FTS5 index in segments: every later search reads
// each, and a catch-up writes one per statement of entries, 46 for a
// million records), and
// returns how many pieces it merged, 0 when it left the index as it was.
// It rewrites the whole index, once: convo index runs it, for the
// searches after; a search's own catch-up does not.
func (s *Store) MergeSearchIndex(ctx context.Context, most int) (int, error) {
	if s.readOnly {
		return 0, errReadOnly
	}
	return s.ix().merge(ctx, s, most)
}

func (t *indexTable) merge(ctx context.Context, s *Store, most int) (int, error) {
	db := s.db
	if s.cache != nil {
		db = s.cache
	}
	n := 0
	err := s.runTxOn(ctx, db, nil, func(tx conn) error {
		if err := tx.QueryRowContext(ctx, t.IndexSegments()).Scan(&n); err != nil {
			return fmt.Errorf("count the index's segments: %w", err)
		}
		if n <= most {
			n = 0
			return nil
		}
		if _, err := tx.ExecContext(ctx, t.IndexMerge()); err != nil {
			return fmt.Errorf("merge the index: %w", err)
		}
		return nil
	})
	return n, err
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
	return s.ix().catchUp(ctx, s, progress, wait)
}

// catchUp is indexSearch for the index table.
func (t *indexTable) catchUp(ctx context.Context, s *Store, progress func(done, total int64), wait time.Duration) (int64, error) {
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
			n, more, err = t.indexSome(ctx, tx)
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
func (t *indexTable) indexSome(ctx context.Context, tx conn) (int, bool, error) {
	col := t.column
	cur, err := indexCursor(ctx, tx)
	if err != nil {
		return 0, false, err
	}
	ix := indexer{ctx: ctx, tx: tx, t: t}
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
