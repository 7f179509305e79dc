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
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLock is the advisory lock key two runners starting at once
// queue on, so that the schema is migrated once.
const migrationLock = 0x636f6e766f // "convo"

// DefaultConnectTimeout bounds the making of a connection (TCP, TLS and
// the startup exchange) when neither the URL's connect_timeout nor
// PGCONNECT_TIMEOUT sets one: a server that accepts and never answers
// fails the command instead of hanging it.
const DefaultConnectTimeout = 10 * time.Second

// connectTimeout is DefaultConnectTimeout; tests shorten it.
var connectTimeout = DefaultConnectTimeout

// mode is what an open may do to the database.
type mode int

const (
	forReading  mode = iota // never creates or migrates the tables
	forChanging             // migrates convo's tables, never creates them
	forWriting              // creates the tables on first use
)

// Open connects to the database at url (postgres://... or
// postgresql://...) and brings its schema up to date. Tables are created on
// first use, in the connection's search_path.
func Open(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	return open(ctx, dsn, forWriting)
}

// OpenExisting is Open for a command that changes only what is stored:
// a database without convo's tables is store.ErrNoStore (wrapped), and
// nothing is created in it.
func OpenExisting(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	return open(ctx, dsn, forChanging)
}

// OpenRead opens the store for a command that only reads: nothing is
// created or migrated. A database without convo's tables is
// store.ErrNoStore, one an older convo made store.ErrOutdated (wrapped).
func OpenRead(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	return open(ctx, dsn, forReading)
}

func open(ctx context.Context, dsn string, m mode) (*sqlstore.Store, error) {
	name := "postgres " + Redact(dsn)
	cfg, err := connConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	db := stdlib.OpenDB(*cfg)
	// Keep enough connections for summarize -j N and concurrent readers
	// without reconnecting for each transaction.
	db.SetMaxIdleConns(16)
	if err := prepare(ctx, db, m); err != nil {
		db.Close()
		err = noDatabase(err, cfg.Database)
		return nil, scrub(fmt.Errorf("open store %s: %w", name, err), Secrets(dsn))
	}
	return sqlstore.New(db, &dialect{name: name}), nil
}

// CheckURL reports whether dsn is a URL a store can be opened at, without
// connecting: store.ErrBadLocation (wrapped, no password in its text)
// when not.
func CheckURL(dsn string) error {
	if _, err := connConfig(dsn); err != nil {
		return fmt.Errorf("postgres %s: %w", Redact(dsn), err)
	}
	return nil
}

// connConfig reads the URL, with DefaultConnectTimeout unless the URL or
// PGCONNECT_TIMEOUT says otherwise (connect_timeout=0: wait for ever). A
// URL that cannot be read is store.ErrBadLocation, its detail free of any
// password.
func connConfig(dsn string) (*pgx.ConnConfig, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		detail := err.Error()
		var ue *url.Error
		if errors.As(err, &ue) {
			detail = ue.Err.Error() // url.Error repeats the URL, password and all
		}
		return nil, fmt.Errorf("%w: %s", store.ErrBadLocation, scrubText(detail, Secrets(dsn)))
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", store.ErrBadLocation, scrubText(err.Error(), Secrets(dsn)))
	}
	if !u.Query().Has("connect_timeout") && os.Getenv("PGCONNECT_TIMEOUT") == "" {
		cfg.ConnectTimeout = connectTimeout
	}
	return cfg, nil
}

// prepare checks the schema as m allows: it migrates it (forWriting
// creating the tables), or, reading, only checks that it is this convo's.
func prepare(ctx context.Context, db *sql.DB, m mode) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	var present bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('convo_migrations') IS NOT NULL`).Scan(&present); err != nil {
		return err
	}
	if present, err = checkOwn(ctx, db, names, present); err != nil {
		return err
	}
	done := 0
	if present {
		if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM convo_migrations`).Scan(&done); err != nil {
			return err
		}
	}
	switch {
	case done > len(names):
		return fmt.Errorf("schema version %d is newer than this convo knows (%d): upgrade convo", done, len(names))
	case done == len(names):
		return nil // the common case: nothing to do, no lock taken
	case !present && m != forWriting:
		return fmt.Errorf("no convo tables in this database (search_path): %w", store.ErrNoStore)
	case m == forReading:
		return fmt.Errorf("schema version %d, this convo's is %d; a command that writes upgrades it: %w", done, len(names), store.ErrOutdated)
	}
	return migrate(ctx, db, names)
}

// Redact returns the URL with every password in it masked: the userinfo's
// and any query parameter whose name holds "password" (password,
// sslpassword), for messages and logs. An unparsable URL is masked the same
// way as text.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" { // unparsable, or a keyword/value string
		return scrubText(dsn, Secrets(dsn))
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			k, _, ok := strings.Cut(p, "=")
			if key, err := url.QueryUnescape(k); ok && err == nil && isPasswordKey(key) {
				parts[i] = k + "=xxxxx"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

func isPasswordKey(k string) bool { return strings.Contains(strings.ToLower(k), "password") }

// passwordRE finds a password in a connection string that does not parse:
// the userinfo's ("://user:PASSWORD@"), a query parameter's
// ("password=PASSWORD"), a keyword/value string's ("password=PASSWORD" or
// "password='PASS WORD'").
var passwordRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`://[^:@/]*:([^@/]*)@|(?i)password\s*=\s*('(?:[^'\\]|\\.)*'|[^&\s]*)`)
})

// Secrets returns the passwords dsn holds, as written and decoded, and
// PGPASSWORD's value, which the driver uses when the URL gives none:
// whatever convo prints about the store is scrubbed of them.
func Secrets(dsn string) []string {
	var out []string
	add := func(v string) {
		if v != "" && v != "xxxxx" {
			out = append(out, v)
			if d, err := url.QueryUnescape(v); err == nil && d != v {
				out = append(out, d)
			}
		}
	}
	for _, m := range passwordRE().FindAllStringSubmatch(dsn, -1) {
		add(m[1])
		add(strings.Trim(m[2], "'"))
	}
	if u, err := url.Parse(dsn); err == nil {
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for k, vs := range u.Query() {
			if isPasswordKey(k) {
				for _, v := range vs {
					add(v)
				}
			}
		}
	}
	add(os.Getenv("PGPASSWORD"))
	// Longest first, so that a password holding another is masked whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// scrubText masks every secret in s.
func scrubText(s string, secrets []string) string {
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, "xxxxx")
	}
	return s
}

// scrubbed is an error whose text is masked of secrets; errors.Is and As
// still see what it wraps.
type scrubbed struct {
	err error
	msg string
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

func scrub(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	return &scrubbed{err, scrubText(err.Error(), secrets)}
}

// migrate applies the embedded migrations (names, sorted) not yet recorded
// in convo_migrations, all in one transaction under an advisory lock.
func migrate(ctx context.Context, db *sql.DB, names []string) error {
	var done int
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
		// The search index's terms are made by pkg/search's tokenizer,
		// which SQL cannot run: the migration's Go step, in its transaction.
		if strings.HasSuffix(names[v], "_search.sql") {
			if err := sqlstore.BackfillSearch(ctx, tx, &dialect{}); err != nil {
				return fmt.Errorf("migration %s: %w", names[v], err)
			}
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
