package postgres

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/pgtest"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB) storetest.Opener {
		dsn := pgtest.Schema(t)
		return func() (store.Store, error) { return Open(context.Background(), dsn) }
	})
}

// Two runners starting at once on an empty database migrate it once.
func TestMigrateConcurrently(t *testing.T) {
	dsn := pgtest.Schema(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := Open(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	names, _ := fs.Glob(migrationFS, "migrations/*.sql")
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM convo_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(names) {
		t.Fatalf("%d migrations recorded, want each of the %d once", n, len(names))
	}
}

func TestRebind(t *testing.T) {
	d := &dialect{}
	for _, tt := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"a = ?1 AND b = ?2 OR c = ?1", "a = $1 AND b = $2 OR c = $1"},
		{"a = ?2 AND b = ?", "a = $2 AND b = $3"},
		{"LIMIT ?10", "LIMIT $10"},
	} {
		if got := d.Rebind(tt.in); got != tt.want {
			t.Errorf("Rebind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGlobArg(t *testing.T) {
	d := &dialect{}
	for _, tt := range []struct{ glob, want string }{
		{"*", "^.*$"},
		{"ci-?-*", "^ci-.-.*$"},
		{"a.b", `^a\.b$`},
		{"[ab]x", "^[ab]x$"},
		{"[^ab]", "^[^ab]$"},
		{"(x)+$", `^\(x\)\+\$$`},
		{"[open", `^\[open$`},
	} {
		if got := d.GlobArg(tt.glob); got != tt.want {
			t.Errorf("GlobArg(%q) = %q, want %q", tt.glob, got, tt.want)
		}
	}
}

// The URL's password never reaches a message.
func TestDescribeRedactsPassword(t *testing.T) {
	got := Redact("postgres://convo:s3cret@db.example:5432/convo?sslmode=disable")
	if strings.Contains(got, "s3cret") {
		t.Fatalf("redact kept the password: %s", got)
	}
}

func BenchmarkConcurrentAppend(b *testing.B) {
	storetest.BenchmarkConcurrentAppend(b, func(t testing.TB) storetest.Opener {
		dsn := pgtest.Schema(t)
		return func() (store.Store, error) { return Open(context.Background(), dsn) }
	})
}

func pgBackend(t testing.TB) storetest.Opener {
	dsn := pgtest.Schema(t)
	return func() (store.Store, error) { return Open(context.Background(), dsn) }
}

func BenchmarkSearch(b *testing.B)     { storetest.BenchmarkSearch(b, pgBackend) }
func BenchmarkBulkAppend(b *testing.B) { storetest.BenchmarkBulkAppend(b, pgBackend) }

// A runner that found no convo_migrations, while another's migration
// committed just after, must not take the tables that migration made for
// another program's: it sees the schema as migrated.
func TestCheckOwnAfterMigrationCommitted(t *testing.T) {
	dsn := pgtest.Schema(t)
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	names, _ := fs.Glob(migrationFS, "migrations/*.sql")
	present, err := checkOwn(context.Background(), s.DB(), names, false) // the earlier look's
	if err != nil || !present {
		t.Fatalf("checkOwn after a migration committed: present %v, %v; want present, no error", present, err)
	}
}

// A database the server does not have is no store, for every opening:
// convo makes tables, not databases (spec section 3).
func TestMissingDatabaseIsNoStore(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/convo_no_such_database"
	for name, open := range map[string]func(context.Context, string) (*sqlstore.Store, error){
		"Open": Open, "OpenExisting": OpenExisting, "OpenRead": OpenRead,
	} {
		s, err := open(context.Background(), u.String())
		if err == nil {
			s.Close()
		}
		if !errors.Is(err, store.ErrNoStore) || !strings.Contains(err.Error(), `no database "convo_no_such_database"`) {
			t.Errorf("%s: %v; want no store, naming the database", name, err)
		}
	}
}
