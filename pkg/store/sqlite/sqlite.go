// Package sqlite opens a store in one SQLite file (modernc.org/sqlite, no
// cgo). Every write is one BEGIN IMMEDIATE transaction in WAL mode with a
// busy timeout, so several processes may append at once and none loses a
// record.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/convo-cli/convo/pkg/store/sqlstore"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// BusyTimeout is how long a write waits for another process's write.
const BusyTimeout = 30 * time.Second

//go:embed migrations/*.sql
var migrationFS embed.FS

// Open opens (creating when needed) the store at path and brings its schema
// up to date.
func Open(ctx context.Context, path string) (*sqlstore.Store, error) {
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
	return open(ctx, path)
}

// OpenExisting opens the store at path, which must exist: a command that
// only reads never creates one. A missing file is fs.ErrNotExist (wrapped).
func OpenExisting(ctx context.Context, path string) (*sqlstore.Store, error) {
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("store path %q: '?' is not allowed in a path", path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return open(ctx, path)
}

func open(ctx context.Context, path string) (*sqlstore.Store, error) {
	dsn := fmt.Sprintf("%s?_busy_timeout=%d&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate",
		path, BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// A connection opened while another process checkpoints and closes
	// the WAL can be refused at once, busy handler or not: try again.
	err = migrate(ctx, db)
	for delay := 5 * time.Millisecond; busy(err) && delay < time.Second; delay *= 2 {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(delay):
			err = migrate(ctx, db)
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return sqlstore.New(db, dialect{path: path}), nil
}

// migrate applies the embedded migrations newer than PRAGMA user_version,
// each in its own transaction. The common case (nothing to do) costs one read.
func migrate(ctx context.Context, db *sql.DB) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	version, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if version > len(names) {
		return fmt.Errorf("schema version %d is newer than this convo knows (%d): upgrade convo", version, len(names))
	}
	for version < len(names) {
		if err := migrateOne(ctx, db, names, &version); err != nil {
			return err
		}
	}
	return nil
}

// migrateOne applies the migration after *version in one write
// transaction, unless another process did while we waited for the lock.
func migrateOne(ctx context.Context, db *sql.DB, names []string, version *int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	v, err := userVersion(ctx, tx)
	if err != nil {
		return err
	}
	if v > *version {
		*version = v
		return nil
	}
	body, err := migrationFS.ReadFile(names[v])
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("migration %s: %w", names[v], err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	*version = v + 1
	return nil
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func userVersion(ctx context.Context, q rowQuerier) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// busy reports whether err is SQLite's SQLITE_BUSY (or one of its extended
// codes), by the driver's error type.
func busy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}
