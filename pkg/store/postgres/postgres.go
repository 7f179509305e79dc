// Package postgres opens a store in a PostgreSQL database (jackc/pgx/v5
// through database/sql), for many processes and machines sharing one
// store. Every read-modify-write locks its conversation's row; reads that
// take several statements see one REPEATABLE READ snapshot; a transaction
// aborted as a serialization failure or deadlock runs again.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the advisory lock key two runners starting at once
// queue on, so that the schema is migrated once.
const migrationLock = 0x636f6e766f // "convo"

// Open connects to the database at url (postgres://... or
// postgresql://...) and brings its schema up to date. Tables are created on
// first use, in the connection's search_path.
func Open(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	name := redact(dsn)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", name, err)
	}
	// Keep enough connections for summarize -j N and concurrent readers
	// without reconnecting for each transaction.
	db.SetMaxIdleConns(16)
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w", name, err)
	}
	return sqlstore.New(db, &dialect{name: name}), nil
}

// redact drops the password from a database URL for messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres (unparsable URL)"
	}
	return "postgres " + u.Redacted()
}

// migrate applies the embedded migrations not yet recorded in
// convo_migrations, all in one transaction under an advisory lock.
func migrate(ctx context.Context, db *sql.DB) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	// The common case, nothing to do, takes no lock.
	var done int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM convo_migrations`).Scan(&done); err == nil && done == len(names) {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("lock for migration: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS convo_migrations (
		version INT PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM convo_migrations`).Scan(&done); err != nil {
		return err
	}
	if done > len(names) {
		return fmt.Errorf("schema version %d is newer than this convo knows (%d): upgrade convo", done, len(names))
	}
	for v := done; v < len(names); v++ {
		body, err := migrationFS.ReadFile(names[v])
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return fmt.Errorf("migration %s: %w", names[v], err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO convo_migrations (version) VALUES ($1)`, v+1); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// dialect is PostgreSQL's way.
type dialect struct {
	name   string
	rebind sync.Map // engine query -> PostgreSQL query
}

func (d *dialect) Describe() string { return d.name }

// Rebind turns ?N into $N and a bare ? into the next number, as SQLite
// numbers them. The engine's statements hold no ? inside quotes.
func (d *dialect) Rebind(q string) string {
	if v, ok := d.rebind.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	highest := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		j := i + 1
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		n := highest + 1
		if j > i+1 {
			n, _ = strconv.Atoi(q[i+1 : j])
		}
		highest = max(highest, n)
		b.WriteString("$" + strconv.Itoa(n))
		i = j - 1
	}
	out := b.String()
	d.rebind.Store(q, out)
	return out
}

func (*dialect) IDsIn(param string) string {
	return "(SELECT jsonb_array_elements_text(CAST(" + param + " AS jsonb)))"
}

func (*dialect) Glob(col, param string) string { return col + " ~ " + param }

// GlobArg turns a glob into an anchored POSIX regular expression.
func (*dialect) GlobArg(glob string) string {
	var b strings.Builder
	b.WriteByte('^')
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteByte('.')
		case '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			// [^...] negates in both; a backslash is literal in a glob.
			set := glob[i+1 : i+1+end]
			b.WriteString("[" + strings.ReplaceAll(set, `\`, `\\`) + "]")
			i += end + 1
		default:
			if strings.IndexByte(`\.+()|{}^$`, c) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('$')
	return b.String()
}

func (*dialect) ForUpdate() string     { return " FOR UPDATE" }
func (*dialect) SerializeWrites() bool { return false }

func (*dialect) SnapshotTx() *sql.TxOptions {
	return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
}

// Retryable: serialization_failure and deadlock_detected.
func (*dialect) Retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}

// Compact leaves space to autovacuum.
func (*dialect) Compact(context.Context, *sql.DB) (bool, int64, error) { return false, 0, nil }

// Check has nothing of PostgreSQL's own to run: the engine checks the
// store's invariants.
func (*dialect) Check(ctx context.Context, db *sql.DB) error { return db.PingContext(ctx) }

// InsertBatch: a round trip per 1,024 records, binding 6,145 of the 65,535
// variables a statement may have (256 a batch was 12% slower).
func (*dialect) InsertBatch() int { return 1024 }
