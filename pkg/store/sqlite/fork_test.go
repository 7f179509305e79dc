package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// The id a fork's statement numbers in SQL is the one IDRun.ID makes.
func TestIDRunSQL(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "ids.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run := transcript.NewIDs().Run(1_700_000_000_000)
	for _, n := range []int64{1, 2, 32, 33, 1 << 20, 1 << 39} {
		var got string
		if err := db.QueryRowContext(context.Background(), `SELECT `+run.SQL("?1"), n).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := run.ID(n - 1); got != want {
			t.Errorf("row %d: SQL %q, Go %q", n, got, want)
		}
	}
}
