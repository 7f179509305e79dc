package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// dialect is SQLite's way: the engine's placeholders are SQLite's own, a
// write transaction (BEGIN IMMEDIATE) already excludes every other writer,
// so no row locks, and this process's writers queue on a mutex rather
// than poll the busy handler.
type dialect struct{ path string }

func (d dialect) Describe() string            { return "sqlite " + d.path }
func (dialect) Rebind(q string) string        { return q }
func (dialect) IDsIn(param string) string     { return "(SELECT value FROM json_each(" + param + "))" }
func (dialect) Glob(col, param string) string { return col + " GLOB " + param }
func (dialect) GlobArg(pattern string) string { return pattern }
func (dialect) ForUpdate() string             { return "" }
func (dialect) SerializeWrites() bool         { return true }
func (dialect) Retryable(error) bool          { return false }
func (dialect) SnapshotTx() *sql.TxOptions    { return &sql.TxOptions{ReadOnly: true} }

// Check runs PRAGMA integrity_check.
func (dialect) Check(ctx context.Context, db *sql.DB) error {
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return fmt.Errorf("integrity check: %s", res)
	}
	return nil
}

// Compact runs VACUUM when more than a quarter of the file's pages are
// free, and returns the bytes it gave back.
func (dialect) Compact(ctx context.Context, db *sql.DB) (bool, int64, error) {
	pages := func() (total, free, size int64, err error) {
		for _, p := range []struct {
			name string
			v    *int64
		}{{"page_count", &total}, {"freelist_count", &free}, {"page_size", &size}} {
			if err = db.QueryRowContext(ctx, "PRAGMA "+p.name).Scan(p.v); err != nil {
				return
			}
		}
		return
	}
	total, free, size, err := pages()
	if err != nil {
		return false, 0, fmt.Errorf("read free pages: %w", err)
	}
	if free*4 <= total {
		return false, 0, nil
	}
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		return false, 0, fmt.Errorf("vacuum: %w", err)
	}
	after, _, _, err := pages()
	if err != nil {
		return true, 0, fmt.Errorf("read pages: %w", err)
	}
	return true, (total - after) * size, nil
}

// InsertBatch: 256 records per INSERT (1,792 bare placeholders) take 40%
// less CPU than a prepared one-row INSERT each (200,000 lines: 1.1 s
// against 1.9 s); numbered placeholders made binding quadratic.
func (dialect) InsertBatch() int { return 256 }
