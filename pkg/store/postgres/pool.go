package postgres

// Connections: how many one process opens, which failures to reach the
// server are worth trying again, and the session locks that hold
// summarize --all's claims on one of them (a claim per connection would
// need as many connections as claims).

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// DefaultMaxConns is how many connections a process opens unless told
// otherwise (--db-max-conns): enough for summarize --all's claims and its
// reads and writes, which are short next to the summarizer's answers, and
// small enough that eight runners take 32 of a default server's 100.
const DefaultMaxConns = 4

// MinMaxConns is the fewest a process can work with: summarize --all holds
// one connection for its claims while its workers read and write on
// another.
const MinMaxConns = 2

// SetMaxConns caps the connections of s, a store this package opened, at
// n (at least MinMaxConns), idle ones included.
func SetMaxConns(s *sqlstore.Store, n int) {
	limitPool(s.DB(), n)
}

func limitPool(db *sql.DB, n int) {
	n = max(n, MinMaxConns)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
}

// Transient reports an error of reaching the server, after which the same
// work may succeed later: too many clients (SQLSTATE 53300, the server's
// or a role's or database's limit), the server shutting down or starting
// up (57P01, 57P02, 57P03), a connection exception (class 08), or a
// connection refused, reset or closed under the statement (pgx says
// which are safe to retry). An error the
// server gave for the statement itself (a constraint, a syntax error, a
// failed login) is not transient, nor is a context's end.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "53300", "57P01", "57P02", "57P03":
			return true
		}
		return strings.HasPrefix(pg.Code, "08")
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false // a misspelt host does not come back
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.SafeToRetry(err):
		return true
	}
	for _, e := range []error{io.EOF, io.ErrUnexpectedEOF, driver.ErrBadConn, syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Transient: see the function.
func (*dialect) Transient(err error) bool { return Transient(err) }

// SessionLocks are the statements that take (without waiting) and drop a
// lock of the session, keyed by a conversation id: the server drops it with
// the connection, so a killed runner's claims go at once.
func (*dialect) SessionLocks() (try, unlock string) {
	return `SELECT pg_try_advisory_lock(hashtextextended(?, 0))`, `SELECT pg_advisory_unlock(hashtextextended(?, 0))`
}
