// Package sqlstore is the store's transactional logic over database/sql:
// append with its merges, summaries, fork, rewind, prune, export cursors,
// rate-limit slots and claims. What differs between databases (placeholders,
// migrations, locking, a handful of statements) is a Dialect; the sqlite and
// postgres packages provide one each and open a Store with it.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/convo-cli/convo/pkg/retry"
	"github.com/convo-cli/convo/pkg/store"
)

// Dialect is what one database does its own way.
type Dialect interface {
	// Describe names the store for messages: "sqlite /path/convo.db".
	Describe() string
	// Rebind turns the engine's placeholders (? and ?N, as SQLite writes
	// them) into the driver's.
	Rebind(query string) string
	// IDsIn is a subquery yielding the strings of the JSON array bound at
	// param ("?2"), for "id IN (...)" without one variable per id.
	IDsIn(param string) string
	// Glob is a predicate matching col against the pattern bound at param;
	// GlobArg turns a glob (* ? [set]) into what is bound there.
	Glob(col, param string) string
	GlobArg(pattern string) string
	// ForUpdate is the suffix that locks the rows a SELECT reads until the
	// transaction ends: "" where a write transaction already excludes every
	// other writer.
	ForUpdate() string
	// SnapshotTx are the options of a read-only transaction that sees one
	// snapshot across its statements.
	SnapshotTx() *sql.TxOptions
	// InsertBatch is how many records one INSERT statement carries.
	InsertBatch() int
	// SerializeWrites asks the engine to queue this process's write
	// transactions on a mutex (SQLite has one writer at a time anyway).
	SerializeWrites() bool
	// Retryable reports an error after which the whole transaction may run
	// again: a serialization failure or a deadlock.
	Retryable(err error) bool
	// Compact gives free space back when more than a quarter is free.
	Compact(ctx context.Context, db *sql.DB) (done bool, freed int64, err error)
	// Check runs the database's own integrity check.
	Check(ctx context.Context, db *sql.DB) error
	// SearchIndex is the store's search index, configured with the
	// database's SQL (NewTermsInRow, NewIndexTable).
	SearchIndex() SearchIndex
}

// Store is a store.Store over a database/sql database.
type Store struct {
	db *sql.DB
	d  Dialect
	// writeMu queues this process's writers when the dialect asks for it.
	writeMu sync.Mutex
	// Now is the clock; tests replace it.
	Now func() time.Time
	// Logger, when set, hears what the store read and wrote (counts and
	// ids, never message contents).
	Logger *slog.Logger
	// Retry is how a transaction that could not reach the database is
	// tried again (see retry.go); zero: store.DefaultBackoff.
	Retry store.Backoff
	// claims holds the session-lock claims where the dialect has them.
	claims claimConn
	// ClaimTimeout bounds each statement that claims a conversation or
	// reserves a rate slot (DefaultClaimTimeout when zero): a server that
	// stops answering, or a lock held by a runner that hangs, fails that
	// one claim instead of the whole run waiting forever.
	ClaimTimeout time.Duration
	// cache, when set, is where best-effort cache writes go (list's token
	// figures) for a store opened to read only: its own database handle,
	// which may write but never creates or migrates anything.
	cache *sql.DB
	// readOnly: see SetReadOnly.
	readOnly bool
	// figures, when set, is the token count every write keeps up to date
	// in its own transaction (SetFigures).
	figures *figureCounter
}

// DefaultClaimTimeout is the ClaimTimeout of a Store that sets none.
const DefaultClaimTimeout = 30 * time.Second

func (s *Store) claimTimeout() time.Duration {
	if s.ClaimTimeout > 0 {
		return s.ClaimTimeout
	}
	return DefaultClaimTimeout
}

var _ store.Store = (*Store)(nil)

// New returns a Store over db, whose schema the dialect's package migrated.
func New(db *sql.DB, d Dialect) *Store {
	return &Store{db: db, d: d, Now: time.Now}
}

// SetCacheDB makes db the handle best-effort cache writes use (see
// ViewTokens); the store closes it with its own.
func (s *Store) SetCacheDB(db *sql.DB) { s.cache = db }

// Close closes the database.
func (s *Store) Close() error {
	s.claims.close()
	if s.cache != nil {
		s.cache.Close()
	}
	return s.db.Close()
}

// DB exposes the database for tests and benchmarks in other packages.
func (s *Store) DB() *sql.DB { return s.db }

// Describe names the store for messages.
func (s *Store) Describe() string { return s.d.Describe() }

// SetNow replaces the clock (the conformance suite's fake clocks).
func (s *Store) SetNow(now func() time.Time) { s.Now = now }

func (s *Store) nowMillis() int64 { return s.Now().UnixMilli() }

var discard = slog.New(slog.DiscardHandler)

// log returns the store's logger, or one that writes nothing.
func (s *Store) log() *slog.Logger {
	if s.Logger == nil {
		return discard
	}
	return s.Logger
}

// querier is what *sql.DB and *sql.Tx both offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// conn is a database or transaction speaking the engine's placeholders:
// every statement is rebound to the dialect's on the way in.
type conn struct {
	q querier
	d Dialect
}

func (c conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.q.ExecContext(ctx, c.d.Rebind(query), args...)
}

func (c conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.q.QueryContext(ctx, c.d.Rebind(query), args...)
}

func (c conn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return c.q.QueryRowContext(ctx, c.d.Rebind(query), args...)
}

func (c conn) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return c.q.PrepareContext(ctx, c.d.Rebind(query))
}

// forUpdate is the dialect's row-lock suffix.
func (c conn) forUpdate() string { return c.d.ForUpdate() }

// conn returns the database outside any transaction.
func (s *Store) conn() conn { return conn{s.db, s.d} }

// serialRetry is how a transaction the database aborted as a
// serialization failure or deadlock runs again: 5 runs at most, the n-th
// wait n·5 ms.
var serialRetry = retry.Policy{Attempts: 5, Wait: func(attempt int, _ error) time.Duration {
	return time.Duration(attempt) * 5 * time.Millisecond
}}

// inTx runs fn in one write transaction, committing when fn returns nil and
// rolling back otherwise. A transaction the database aborted for a
// serialization failure or deadlock runs again, and so does one that could
// not reach it (retry.go): fn must be safe to repeat (it is not when it
// consumes a stream; see inTxOnce).
func (s *Store) inTx(ctx context.Context, fn func(conn) error) error {
	return s.retryTransient(ctx, s.transient, func() error { return s.inTxSerial(ctx, fn) })
}

// inTxSerial is inTx without the retry of a database out of reach.
func (s *Store) inTxSerial(ctx context.Context, fn func(conn) error) error {
	return serialRetry.Do(ctx, s.d.Retryable, func(attempt int, err error, _ time.Duration) {
		s.log().Debug("transaction retried", "attempt", attempt, "error", err.Error())
	}, func(int) error { return s.runTx(ctx, nil, fn) })
}

// inTxOnce is inTx without the retry once fn ran, for fn that reads a
// stream: only a transaction that could not begin is tried again.
func (s *Store) inTxOnce(ctx context.Context, fn func(conn) error) error {
	return s.retryTransient(ctx, s.transientBegin, func() error { return s.runTx(ctx, nil, fn) })
}

// inSnapshot runs fn in a read-only transaction that sees one snapshot.
// fn may have printed what it read (get): only a transaction that could
// not begin is tried again.
func (s *Store) inSnapshot(ctx context.Context, fn func(conn) error) error {
	return s.retryTransient(ctx, s.transientBegin, func() error { return s.runTx(ctx, s.d.SnapshotTx(), fn) })
}

func (s *Store) runTx(ctx context.Context, opts *sql.TxOptions, fn func(conn) error) error {
	return s.runTxOn(ctx, s.db, opts, fn)
}

func (s *Store) runTxOn(ctx context.Context, db *sql.DB, opts *sql.TxOptions, fn func(conn) error) error {
	if opts == nil && s.d.SerializeWrites() {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
	}
	if _, ok := s.d.(RecordCopier); ok && opts == nil {
		return s.runCopyTx(ctx, db, fn)
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return &beginError{err}
	}
	var q querier = tx
	var o *overlapTx
	if opts == nil {
		o = &overlapTx{tx: tx} // a write: its bulk inserts may run behind it (overlap.go)
		q = o
	}
	err = fn(conn{q, s.d})
	if o != nil {
		if serr := o.settle(); err == nil {
			err = serr
		}
	}
	if err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return &commitError{err}
	}
	return nil
}

// commitError is a commit that failed: with the connection lost during it,
// the database may have stored the change or not.
type commitError struct{ err error }

func (e *commitError) Error() string {
	return fmt.Sprintf("commit: %v (the store may or may not hold the change)", e.err)
}
func (e *commitError) Unwrap() error { return e.err }

// notStored says of a failed write that nothing of it was stored, which
// holds for every failure but a commit's (a conflict says so itself).
func notStored(err error) error {
	var c *commitError
	if err == nil || errors.As(err, &c) || errors.Is(err, store.ErrConflict) {
		return err
	}
	return fmt.Errorf("%w (nothing of it was stored)", err)
}

// IntegrityCheck runs the database's own check, then the store's: every
// record belongs to a conversation whose counters are past it.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	if err := s.d.Check(ctx, s.db); err != nil {
		return err
	}
	var orphans, behind int64
	err := s.conn().QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM records r WHERE NOT EXISTS (SELECT 1 FROM conversations c WHERE c.id = r.conversation)),
		(SELECT count(*) FROM conversations c WHERE c.next_pos <= (SELECT coalesce(max(pos), 0) FROM records r WHERE r.conversation = c.id)
			OR c.next_seq <= (SELECT coalesce(max(seq), 0) FROM records r WHERE r.conversation = c.id))`).Scan(&orphans, &behind)
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if orphans > 0 || behind > 0 {
		return fmt.Errorf("integrity check: %d record(s) without a conversation, %d conversation(s) with counters behind their records", orphans, behind)
	}
	return nil
}

// errNothing rolls back a transaction that changed nothing worth keeping.
var errNothing = errors.New("nothing to write")

// errDryRun rolls back a transaction that only looked.
var errDryRun = errors.New("dry run")
