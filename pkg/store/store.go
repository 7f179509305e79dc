// Package store keeps conversations in one SQLite file (modernc.org/sqlite,
// no cgo). Every write is one BEGIN IMMEDIATE transaction in WAL mode with a
// busy timeout, so several processes may append at once and none loses a
// record; records are read back in transcript order through a cursor.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrNotFound is returned for a conversation or record that does not exist.
var ErrNotFound = errors.New("not found")

// BusyTimeout is how long a write waits for another process's write.
const BusyTimeout = 30 * time.Second

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is an open store file.
type Store struct {
	db *sql.DB
	// writeMu queues this process's writers in Go: SQLite's busy handler
	// would make concurrent connections poll for the lock with sleeps of up
	// to 100 ms. Other processes still meet the busy timeout.
	writeMu sync.Mutex
	// Now is the clock; tests replace it.
	Now func() time.Time
	// Logger, when set, hears what the store read and wrote (counts and
	// ids, never message contents).
	Logger *slog.Logger
}

// Open opens (creating when needed) the store at path and brings its schema
// up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("store path %q: '?' is not allowed in a path", path)
	}
	// Conversations are private: a new directory is 0700 and a new store
	// file 0600, created here because SQLite would make it 0644 (its -wal
	// and -shm files copy the store file's mode). An existing file keeps
	// the mode its owner gave it.
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create store directory: %w", err)
		}
	}
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create store %s: %w", path, err)
	}
	dsn := fmt.Sprintf("%s?_busy_timeout=%d&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate",
		path, BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s := &Store{db: db, Now: time.Now}
	// A connection opened while another process checkpoints and closes
	// the WAL can be refused at once, busy handler or not: try again.
	err = s.migrate(ctx)
	for delay := 5 * time.Millisecond; busy(err) && delay < time.Second; delay *= 2 {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(delay):
			err = s.migrate(ctx)
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// DB exposes the database for tests and benchmarks in other packages.
func (s *Store) DB() *sql.DB { return s.db }

func (s *Store) nowMillis() int64 { return s.Now().UnixMilli() }

// migrate applies the embedded migrations newer than PRAGMA user_version,
// each in its own transaction. The common case (nothing to do) costs one read.
func (s *Store) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	version, err := s.userVersion(ctx, s.db)
	if err != nil {
		return err
	}
	if version > len(names) {
		return fmt.Errorf("schema version %d is newer than this convo knows (%d): upgrade convo", version, len(names))
	}
	for version < len(names) {
		if err := s.inTx(ctx, func(tx *sql.Tx) error {
			// Another process may have migrated while we waited for the lock.
			v, err := s.userVersion(ctx, tx)
			if err != nil || v > version {
				version = v
				return err
			}
			body, err := migrationFS.ReadFile(names[version])
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", names[version], err)
			}
			version++
			_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version))
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) userVersion(ctx context.Context, q querier) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// inTx runs fn in one write transaction (BEGIN IMMEDIATE through the DSN),
// committing when fn returns nil and rolling back otherwise.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	var res string
	if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return fmt.Errorf("integrity check: %s", res)
	}
	return nil
}

// busy reports whether err is SQLite's SQLITE_BUSY (or one of its extended
// codes), by the driver's error type.
func busy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}
