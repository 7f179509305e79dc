package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/convo-cli/convo/pkg/store"
)

// convoTables lists the tables convo's migrations create, read from them so
// that a new migration's table is known without a second list to keep.
func convoTables(names []string) ([]string, error) {
	// Compiled here, not at start-up: only a store's first opening asks.
	createTable := regexp.MustCompile(`(?i)\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)
	var tables []string
	for _, n := range names {
		body, err := fs.ReadFile(migrationFS, n)
		if err != nil {
			return nil, err
		}
		for _, m := range createTable.FindAllStringSubmatch(string(body), -1) {
			tables = append(tables, strings.ToLower(m[1]))
		}
	}
	return tables, nil
}

// checkOwn refuses, before anything in it changes, a schema another
// program made (spec section 6: exit 2): a convo_migrations table whose
// version is no integer, or, with no convo_migrations, tables with convo's
// names, which a migration would collide with. Either used to fail later
// as a runtime error (exit 1) in the middle of a query or a migration.
// present is what an earlier look found of convo_migrations; checkOwn
// returns it as one look at the schema finds it: a runner's migration
// committed between the two looks made the tables and convo_migrations
// together, and makes no foreign schema.
func checkOwn(ctx context.Context, db *sql.DB, migrations []string, present bool) (bool, error) {
	if present {
		var typ string
		err := db.QueryRowContext(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
			WHERE attrelid = to_regclass('convo_migrations') AND attname = 'version' AND NOT attisdropped`).Scan(&typ)
		if errors.Is(err, sql.ErrNoRows) || err == nil && typ != "integer" {
			return true, fmt.Errorf("%w: its convo_migrations table has no integer version column (another program's table); convo changed nothing in it", store.ErrNotAStore)
		}
		return true, err
	}
	tables, err := convoTables(migrations)
	if err != nil {
		return false, err
	}
	// One statement, one snapshot of pg_class: convo's tables and
	// convo_migrations are there together or not at all.
	var held sql.NullString
	var migrated bool
	if err := db.QueryRowContext(ctx, `SELECT string_agg(relname, ', ' ORDER BY relname) FILTER (WHERE relname <> 'convo_migrations'),
		coalesce(bool_or(relname = 'convo_migrations'), false) FROM pg_class
		WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
		AND relname = ANY(string_to_array($1, ','))`, strings.Join(append(tables, "convo_migrations"), ",")).Scan(&held, &migrated); err != nil {
		return false, err
	}
	if migrated {
		return checkOwn(ctx, db, migrations, true)
	}
	if held.Valid {
		return false, fmt.Errorf("%w: it holds tables named as convo's (%s) but no convo_migrations (another program's tables); convo changed nothing in it", store.ErrNotAStore, held.String)
	}
	return false, nil
}
