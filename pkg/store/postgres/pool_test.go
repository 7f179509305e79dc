package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/convo-cli/convo/internal/pgtest"
)

// TestTransient: the failures to reach the server are transient, through
// any wrapping; the server's answers to a statement, a misspelt host and a
// context's end are not.
func TestTransient(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("read conversation: %w", err) }
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "53300", Message: "sorry, too many clients already"}, true},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{wrap(io.ErrUnexpectedEOF), true},
		{wrap(syscall.ECONNRESET), true},
		{&pgconn.PgError{Code: "23505"}, false}, // unique violation
		{&pgconn.PgError{Code: "28P01"}, false}, // password authentication failed
		{&pgconn.PgError{Code: "40001"}, false}, // serialization failure: the transaction's own retry
		{wrap(&net.DNSError{Err: "no such host", Name: "db.invalid", IsNotFound: true}), false},
		{wrap(context.Canceled), false},
		{errors.New("stored record is corrupt"), false},
		{nil, false},
	} {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestTransientTooManyClients: the server's own refusal for too many
// connections (here a role's limit, the same SQLSTATE 53300) is
// transient, as the store sees it when it opens.
func TestTransientTooManyClients(t *testing.T) {
	server := pgtest.URL(t)
	admin, err := sql.Open("pgx", server)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	role := fmt.Sprintf("convo_nolimit_%d", os.Getpid())
	if _, err := admin.Exec(`CREATE ROLE ` + role + ` LOGIN CONNECTION LIMIT 0`); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(`DROP ROLE ` + role)
	u, _ := url.Parse(server)
	u.User = url.User(role)
	_, err = Open(context.Background(), u.String())
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "53300" || !Transient(err) {
		t.Fatalf("open over the role's limit: %v; want a transient 53300", err)
	}
}

// TestSetMaxConns: the pool is capped, idle connections included, and
// never below two.
func TestSetMaxConns(t *testing.T) {
	db, err := sql.Open("pgx", "postgres://localhost/none")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct{ set, want int }{{4, 4}, {1, MinMaxConns}, {40, 40}} {
		limitPool(db, tc.set)
		if got := db.Stats().MaxOpenConnections; got != tc.want {
			t.Errorf("limitPool(%d): at most %d connections, want %d", tc.set, got, tc.want)
		}
	}
}
