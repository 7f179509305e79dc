package postgres

// Issue 27 (Hardening II): what opening a PostgreSQL store may do, its
// timeouts, and its passwords kept out of every message.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/pgtest"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// Every form a password takes in a location is masked, as written and
// decoded, and the rest of the location stays readable.
func TestRedactEveryForm(t *testing.T) {
	for _, tt := range []struct {
		dsn     string
		secrets []string
		keep    string
	}{
		{"postgres://convo:s3cret@db.example/convo", []string{"s3cret"}, "db.example"},
		{"postgres://convo@db.example/convo?password=s3cret", []string{"s3cret"}, "db.example"},
		{"postgresql://convo@db.example/convo?sslmode=disable&PassWord=s3cret&sslpassword=k3ycret", []string{"s3cret", "k3ycret"}, "sslmode=disable"},
		{"postgres://convo:p%40ss%2Fw0rd@db.example/convo", []string{"p%40ss%2Fw0rd", "p@ss/w0rd"}, "db.example"},
		{"postgres://convo@db.example/convo?password=p%26ss+w0rd", []string{"p%26ss+w0rd", "p&ss w0rd"}, "db.example"},
		{"postgres://convo:s3cret@db.example:notaport/convo?password=q3cret", []string{"s3cret", "q3cret"}, "db.example"},
		{"host=db.example password=s3cret dbname=convo", []string{"s3cret"}, "db.example"},
		{"host=db.example password='s3 cret' dbname=convo", []string{"s3 cret"}, "db.example"},
	} {
		got := Redact(tt.dsn)
		for _, sec := range tt.secrets {
			if strings.Contains(got, sec) {
				t.Errorf("Redact(%q) = %q: holds %q", tt.dsn, got, sec)
			}
		}
		if !strings.Contains(got, tt.keep) {
			t.Errorf("Redact(%q) = %q: lost %q", tt.dsn, got, tt.keep)
		}
	}
}

// PGPASSWORD, which the driver uses when the URL has no password, is among
// the secrets every error about the store is scrubbed of.
func TestPGPASSWORDScrubbed(t *testing.T) {
	t.Setenv("PGPASSWORD", "pgpw-s3cret")
	secrets := Secrets("postgres://convo@db.example/convo")
	if !slices.Contains(secrets, "pgpw-s3cret") {
		t.Fatalf("Secrets = %q: PGPASSWORD missing", secrets)
	}
	err := scrub(fmt.Errorf("open: %w", errors.New("server said pgpw-s3cret")), secrets)
	if strings.Contains(err.Error(), "pgpw-s3cret") {
		t.Fatalf("scrubbed error: %v", err)
	}
}

// A URL that does not parse is store.ErrBadLocation (a bad flag value, not a
// runtime failure), opened by no mode, and its message holds no password.
func TestMalformedURL(t *testing.T) {
	for _, dsn := range []string{"postgres://x:notaport/db", "postgres://convo:s3cret@db.example:notaport/convo?password=q3cret"} {
		for name, open := range map[string]func(context.Context, string) (*sqlstore.Store, error){
			"Open": Open, "OpenExisting": OpenExisting, "OpenRead": OpenRead,
		} {
			_, err := open(context.Background(), dsn)
			if !errors.Is(err, store.ErrBadLocation) {
				t.Errorf("%s(%q): %v, want ErrBadLocation", name, dsn, err)
				continue
			}
			if msg := err.Error(); strings.Contains(msg, "s3cret") || strings.Contains(msg, "q3cret") {
				t.Errorf("%s(%q): the message holds the password: %s", name, dsn, msg)
			}
		}
	}
}

// connect_timeout in the URL wins; without it, PGCONNECT_TIMEOUT; without
// either, DefaultConnectTimeout, never none.
func TestConnectTimeoutDefault(t *testing.T) {
	t.Setenv("PGCONNECT_TIMEOUT", "")
	for _, tt := range []struct {
		dsn, env string
		want     time.Duration
	}{
		{"postgres://u@h/db", "", DefaultConnectTimeout},
		{"postgres://u@h/db?connect_timeout=3", "", 3 * time.Second},
		{"postgres://u@h/db?connect_timeout=0", "", 0},
		{"postgres://u@h/db", "7", 7 * time.Second},
	} {
		t.Setenv("PGCONNECT_TIMEOUT", tt.env)
		cfg, err := connConfig(tt.dsn)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.ConnectTimeout != tt.want {
			t.Errorf("%s (PGCONNECT_TIMEOUT=%q): connect timeout %s, want %s", tt.dsn, tt.env, cfg.ConnectTimeout, tt.want)
		}
	}
}

// silentServer accepts connections and never answers, and returns its
// address.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// within fails t when fn has not returned after a generous while: a hang,
// not a slow return (nothing here measures how long fn took).
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s never returned", what)
	}
}

// A server that accepts the connection and never answers fails the open,
// by the default timeout when the URL sets none (shortened here) and by the
// URL's connect_timeout otherwise, in every mode.
func TestServerThatNeverAnswers(t *testing.T) {
	addr := silentServer(t)
	defer func(d time.Duration) { connectTimeout = d }(connectTimeout)
	connectTimeout = 200 * time.Millisecond
	t.Setenv("PGCONNECT_TIMEOUT", "")
	for _, dsn := range []string{
		"postgres://convo@" + addr + "/convo?sslmode=disable",
		"postgres://convo@" + addr + "/convo?sslmode=disable&connect_timeout=1",
		"postgres://convo@" + addr + "/convo", // sslmode prefer: the TLS request goes unanswered too
	} {
		for name, open := range map[string]func(context.Context, string) (*sqlstore.Store, error){
			"Open": Open, "OpenExisting": OpenExisting, "OpenRead": OpenRead,
		} {
			within(t, name+" "+dsn, func() {
				s, err := open(context.Background(), dsn)
				if err == nil {
					s.Close()
					t.Errorf("%s(%s): opened a server that never answers", name, dsn)
				}
			})
		}
	}
}

// freezer is a TCP proxy to a PostgreSQL server that, once frozen, stops
// passing anything either way while keeping every connection open: a
// server that stops answering mid-session.
type freezer struct {
	addr   string
	mu     sync.Mutex
	frozen bool
	wake   chan struct{}
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{addr: l.Addr().String(), wake: make(chan struct{})}
	var conns []net.Conn
	var mu sync.Mutex
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				f.mu.Lock()
				frozen := f.frozen
				f.mu.Unlock()
				if frozen {
					<-f.wake // swallow it: never delivered
					return
				}
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			go pipe(s, c)
			go pipe(c, s)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		close(f.wake)
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return f
}

func (f *freezer) freeze() {
	f.mu.Lock()
	f.frozen = true
	f.mu.Unlock()
}

// throughFreezer returns dsn with its host and port replaced by f's.
func throughFreezer(t *testing.T, dsn string) (*freezer, string) {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	f := newFreezer(t, u.Host)
	u.Host = f.addr
	return f, u.String()
}

// A claim, its release and a rate slot on a server that stopped answering
// fail after ClaimTimeout instead of waiting for ever.
func TestClaimOnServerThatStoppedAnswering(t *testing.T) {
	f, dsn := throughFreezer(t, pgtest.Schema(t))
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ClaimTimeout = 300 * time.Millisecond
	s.Retry = store.Backoff{Attempts: 1}
	release, ok, err := s.Claim(context.Background(), "before", "me", 0)
	if err != nil || !ok {
		t.Fatalf("claim before the freeze: ok %v, %v", ok, err)
	}
	f.freeze()
	within(t, "release", func() { release(true) })
	within(t, "Claim", func() {
		if _, _, err := s.Claim(context.Background(), "c", "me", 0); err == nil {
			t.Error("Claim on a server that never answers succeeded")
		}
	})
	within(t, "RateSlot", func() {
		if _, err := s.RateSlot(context.Background(), "k", time.Second); err == nil {
			t.Error("RateSlot on a server that never answers succeeded")
		}
	})
}

// Commands that read, or change only what is stored, never create convo's
// tables: an empty database is store.ErrNoStore and stays empty. One an
// older convo made is read by no command that only reads.
func TestOpenCreatesTablesOnlyToWrite(t *testing.T) {
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	probe, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	present := func() bool {
		var ok bool
		if err := probe.QueryRow(`SELECT to_regclass('convo_migrations') IS NOT NULL`).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for name, open := range map[string]func(context.Context, string) (*sqlstore.Store, error){"OpenRead": OpenRead, "OpenExisting": OpenExisting} {
		if _, err := open(ctx, dsn); !errors.Is(err, store.ErrNoStore) || !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s of an empty database: %v, want ErrNoStore", name, err)
		}
		if present() {
			t.Fatalf("%s created the tables", name)
		}
	}
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !present() {
		t.Fatal("Open made no tables")
	}
	for name, open := range map[string]func(context.Context, string) (*sqlstore.Store, error){"OpenRead": OpenRead, "OpenExisting": OpenExisting} {
		s, err := open(ctx, dsn)
		if err != nil {
			t.Fatalf("%s of a store: %v", name, err)
		}
		s.Close()
	}
	if _, err := probe.Exec(`DELETE FROM convo_migrations WHERE version = (SELECT max(version) FROM convo_migrations)`); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRead(ctx, dsn); !errors.Is(err, store.ErrOutdated) {
		t.Fatalf("OpenRead of an older store: %v, want ErrOutdated", err)
	}
}

// A schema another program made, with tables named as convo's, is
// store.ErrNotAStore for every mode, and nothing in it changes: it was a
// runtime error (a failed migration, a failed query), or for a reader "no
// such store".
func TestForeignSchemaRefused(t *testing.T) {
	ctx := context.Background()
	for name, ddl := range map[string]string{
		"convo's table names": `CREATE TABLE records (id int, body text); CREATE TABLE conversations (name text)`,
		"foreign migrations":  `CREATE TABLE convo_migrations (version text, foo int)`,
	} {
		dsn := pgtest.Schema(t)
		probe, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer probe.Close()
		if _, err := probe.Exec(ddl); err != nil {
			t.Fatal(err)
		}
		for mode, open := range map[string]func(context.Context, string) (*sqlstore.Store, error){"Open": Open, "OpenRead": OpenRead, "OpenExisting": OpenExisting} {
			if s, err := open(ctx, dsn); !errors.Is(err, store.ErrNotAStore) {
				if s != nil {
					s.Close()
				}
				t.Errorf("%s: %s: %v, want ErrNotAStore", name, mode, err)
			}
		}
		var n int
		if err := probe.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := strings.Count(ddl, "CREATE TABLE"); n != want {
			t.Errorf("%s: %d tables after opening, want %d: convo changed the schema", name, n, want)
		}
	}
}
