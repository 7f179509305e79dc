// Package sqlitetest gives a test a SQLite store of its own: a new file in
// the test's directory, closed when the test ends.
package sqlitetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// Open opens a new store in t's directory, closed with t.
func Open(t testing.TB) *sqlstore.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
