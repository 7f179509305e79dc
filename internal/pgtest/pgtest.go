// Package pgtest gives tests an empty PostgreSQL schema of their own on the
// server CONVO_TEST_POSTGRES names (.ci/run starts one), or skips them,
// saying so, where no server is set.
package pgtest

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// Env is the variable naming the test server.
const Env = "CONVO_TEST_POSTGRES"

// URL returns the test server's URL, skipping t when none is set.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		t.Skip(Env + " is not set: no PostgreSQL server to test against (.ci/postgres.sh starts one)")
	}
	return u
}

var schemas atomic.Int64

// Schema creates an empty schema, dropped when t ends, and returns a URL
// whose connections use it (search_path), so tests never see each other's
// tables. It skips t when no server is set.
func Schema(t testing.TB) string {
	t.Helper()
	u, drop, err := NewSchema(URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	return u
}

// NewSchema is Schema for callers that are not a test (a testscript's
// setup): it returns the schema's URL and the function that drops it.
func NewSchema(server string) (string, func(), error) {
	name := fmt.Sprintf("convo_test_%d_%d", os.Getpid(), schemas.Add(1))
	db, err := sql.Open("pgx", server)
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE SCHEMA " + name); err != nil {
		return "", nil, fmt.Errorf("create schema on %s: %w", Env, err)
	}
	drop := func() {
		if db, err := sql.Open("pgx", server); err == nil {
			db.Exec("DROP SCHEMA " + name + " CASCADE")
			db.Close()
		}
	}
	u, err := url.Parse(server)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}
