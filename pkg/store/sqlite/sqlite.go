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

	"github.com/convo-cli/convo/pkg/retry"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// BusyTimeout is how long a write waits for another process's write.
const BusyTimeout = 30 * time.Second

// PageSize is the page size of the stores convo creates.
const PageSize = 8192

// ApplicationID marks a SQLite file as a convo store (PRAGMA
// application_id, bytes 68-71 of the file's header): "conv" in ASCII. A
// file that carries another, or holds tables none of convo's migrations
// made, is another program's database, and convo refuses it untouched.
const ApplicationID = 0x636f6e76

//go:embed migrations/*.sql
var migrationFS embed.FS

// Open opens (creating when needed) the store at path and brings its schema
// up to date.
func Open(ctx context.Context, path string) (*sqlstore.Store, error) {
	if err := checkPath(path); err != nil {
		return nil, err
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
	return openRW(ctx, path, true)
}

// OpenExisting opens the store at path, which must exist, to change what
// it holds: a command that finds nothing to change never creates a store. A
// missing file is fs.ErrNotExist and store.ErrNoStore (wrapped), and so is
// an empty one (no store was ever made in it).
func OpenExisting(ctx context.Context, path string) (*sqlstore.Store, error) {
	if err := mustExist(path); err != nil {
		return nil, err
	}
	return openRW(ctx, path, false)
}

// OpenRead opens the store at path, which must exist, for a command that
// only reads: SQLite's read-only open (mode=ro; immutable=1 where the
// directory is read-only and no write-ahead log is pending, since SQLite
// could not make its shared-memory file there), so nothing is created,
// migrated or switched to WAL, and a store on a read-only mount reads. A
// store an older convo made is store.ErrOutdated (wrapped): only a command
// that writes upgrades it. The token figures list keeps are still written,
// best effort, through a handle of their own that never creates anything.
func OpenRead(ctx context.Context, path string) (*sqlstore.Store, error) {
	if err := mustExist(path); err != nil {
		return nil, err
	}
	if st, err := inspect(ctx, path); err != nil {
		return nil, err
	} else if st == blank {
		return nil, fmt.Errorf("sqlite %s: %w", path, store.ErrNoStore) // nothing was ever stored there
	}
	db, immutable, err := openRO(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := checkVersion(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s := sqlstore.New(db, dialect{path: path})
	if immutable {
		// Nothing can be written there: search reads what its index
		// lacks rather than bring it up to date.
		s.SetReadOnly()
	} else {
		cache, err := sql.Open("sqlite", uri(path, "mode=rw", fmt.Sprintf("_busy_timeout=%d", BusyTimeout.Milliseconds()), "_txlock=immediate"))
		if err == nil {
			s.SetCacheDB(cache)
		}
	}
	return s, nil
}

func checkPath(path string) error {
	if strings.ContainsRune(path, '?') {
		return fmt.Errorf("store path %q: '?' is not allowed in a path", path)
	}
	// SQLite's in-memory database (":memory:", file::memory:, which reach
	// here as ":memory:"): what is stored there is gone when convo exits,
	// and the driver would leave a file of that name behind.
	if strings.HasPrefix(path, ":memory:") {
		return fmt.Errorf("sqlite %s: SQLite's in-memory database is gone when convo exits, so it is no store path: %w", path, store.ErrNotAStore)
	}
	// Only a regular file can be a store: a device (/dev/null), a FIFO or
	// a directory is none, whatever the command.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		kind := "not a regular file"
		switch {
		case fi.IsDir():
			kind = "a directory"
		case fi.Mode()&fs.ModeCharDevice != 0:
			kind = "a character device"
		case fi.Mode()&fs.ModeDevice != 0:
			kind = "a device"
		case fi.Mode()&fs.ModeNamedPipe != 0:
			kind = "a FIFO"
		case fi.Mode()&fs.ModeSocket != 0:
			kind = "a socket"
		}
		return fmt.Errorf("sqlite %s: %s: %w", path, kind, store.ErrNotAStore)
	}
	return nil
}

func mustExist(path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("sqlite %s: %w", path, missing{})
		}
		return fmt.Errorf("store %s: %w", path, err)
	}
	return nil
}

// missing is a store file that is not there: store.ErrNoStore, and
// fs.ErrNotExist.
type missing struct{}

func (missing) Error() string { return store.ErrNoStore.Error() }
func (missing) Is(target error) bool {
	return target == fs.ErrNotExist || errors.Is(store.ErrNoStore, target)
}

// uri is path as a SQLite URI filename with params: SQLite reads mode=
// and immutable= only there.
func uri(path string, params ...string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	return "file:" + path + "?" + strings.Join(params, "&")
}

// openRO opens path read-only, immutable when SQLite cannot read it
// otherwise for want of a writable directory (its -shm file) and no
// write-ahead log waits there: then nobody can be writing it either.
func openRO(ctx context.Context, path string) (*sql.DB, bool, error) {
	busy := fmt.Sprintf("_busy_timeout=%d", BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", uri(path, "mode=ro", busy))
	if err != nil {
		return nil, false, err
	}
	err = probe(ctx, db)
	if err == nil {
		return db, false, nil
	}
	db.Close()
	if wal, werr := os.Stat(path + "-wal"); !cannotInit(err) || werr == nil && wal.Size() > 0 {
		return nil, false, err
	}
	db, err = sql.Open("sqlite", uri(path, "mode=ro", "immutable=1", busy))
	if err != nil {
		return nil, false, err
	}
	if err := probe(ctx, db); err != nil {
		db.Close()
		return nil, false, err
	}
	return db, true, nil
}

func probe(ctx context.Context, db *sql.DB) error {
	var n int
	return db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n)
}

// cannotInit reports SQLite's SQLITE_CANTOPEN, SQLITE_READONLY_CANTINIT and
// SQLITE_READONLY_DIRECTORY: a WAL file's shared memory it cannot make.
func cannotInit(err error) bool {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return false
	}
	c := coded.Code()
	return c&0xff == 14 || c == 8|5<<8 || c == 8|6<<8
}

// openRW opens the store at path to read and write it, once inspect found
// it is one (or, when create, empty), in WAL mode, its schema brought up
// to date.
func openRW(ctx context.Context, path string, create bool) (*sqlstore.Store, error) {
	st, err := inspect(ctx, path)
	if err != nil {
		return nil, err
	}
	if st == blank && !create {
		return nil, fmt.Errorf("sqlite %s: %w", path, store.ErrNoStore) // nothing was ever stored there
	}
	if err := registerIndexText(); err != nil {
		return nil, err
	}
	if err := registerFork(); err != nil {
		return nil, err
	}
	// page_size takes only in a new file (before its first page; WAL mode
	// keeps a store's size for good): 8 KiB pages, not 4, write a bulk
	// append's rows in half the syscalls (each page is a write to the WAL
	// and one to the file at the checkpoint) and split its B-trees half
	// as often. A search reads them no slower; 16 KiB was slower there.
	dsn := fmt.Sprintf("%s?_busy_timeout=%d&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate&_pragma=page_size(%d)",
		path, BusyTimeout.Milliseconds(), PageSize)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// A connection opened while another process checkpoints and closes
	// the WAL can be refused at once, busy handler or not: try again, 9
	// calls in all, waiting 5, 10, 20 ... 640 ms.
	opening := retry.Policy{Attempts: 9, Wait: retry.Exponential(5*time.Millisecond, time.Second)}
	err = opening.Do(ctx, busy, nil, func(int) error { return migrate(ctx, db, st == marked) })
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return sqlstore.New(db, dialect{path: path}), nil
}

// checkVersion refuses, for a read-only open, a schema other than this
// convo's.
func checkVersion(ctx context.Context, db *sql.DB) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	version, err := userVersion(ctx, db)
	switch {
	case err != nil:
		return err
	case version > len(names):
		return fmt.Errorf("schema version %d is newer than this convo knows (%d): upgrade convo", version, len(names))
	case version < len(names):
		return fmt.Errorf("schema version %d, this convo's is %d; a command that writes to it upgrades it: %w", version, len(names), store.ErrOutdated)
	}
	return nil
}

// migrate applies the embedded migrations newer than PRAGMA user_version,
// each in its own transaction, the first also setting ApplicationID; a
// store made before the mark (isMarked false) gets it too. The common case
// (nothing to do) costs one read.
func migrate(ctx context.Context, db *sql.DB, isMarked bool) error {
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
	if !isMarked {
		var app int32
		if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
			return err
		}
		if uint32(app) != ApplicationID {
			if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", int32(ApplicationID))); err != nil {
				return err
			}
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
	if err := goStep(ctx, tx, names[v]); err != nil {
		return fmt.Errorf("migration %s: %w", names[v], err)
	}
	if v == 0 { // a new store: marked in the transaction that makes it
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", int32(ApplicationID))); err != nil {
			return err
		}
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

// goStep runs what a migration does in Go, in its transaction: the search
// index's terms are made by pkg/search's tokenizer, which SQL cannot run.
func goStep(ctx context.Context, tx *sql.Tx, name string) error {
	switch {
	case strings.HasSuffix(name, "_search.sql"):
		return sqlstore.BackfillSearch(ctx, tx, dialect{})
	case strings.HasSuffix(name, "_search_index.sql"):
		return sqlstore.ReindexSearch(ctx, tx, dialect{})
	}
	return nil
}
