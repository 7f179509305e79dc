package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/convo-cli/convo/pkg/store"
)

// Telling a convo store from another program's database.

// state is what inspect found in a file.
type state int

const (
	blank  state = iota // an empty file or database: a store to be
	ours                // a convo store from before ApplicationID, or one whose header does not carry it yet
	marked              // a convo store whose header carries ApplicationID
)

// inspect refuses, changing nothing in it, a file that is not a convo
// store: not a SQLite database, or one of another program (an
// application_id not convo's, tables none of convo's migrations made).
func inspect(ctx context.Context, path string) (state, error) {
	f, err := os.Open(path)
	if err != nil {
		return blank, fmt.Errorf("store %s: %w", path, err)
	}
	var hdr [100]byte
	n, err := io.ReadFull(f, hdr[:])
	f.Close()
	switch {
	case n == 0 && (err == io.EOF || err == nil):
		return blank, nil
	case n < len(hdr) || string(hdr[:16]) != "SQLite format 3\x00":
		return blank, notAStore(path, "it is not a SQLite database")
	case binary.BigEndian.Uint32(hdr[68:72]) == ApplicationID:
		return marked, nil
	}
	// Ask SQLite, which also reads a write-ahead log not yet copied back.
	db, _, err := openRO(ctx, path)
	if err != nil {
		return blank, fmt.Errorf("open store %s: %w", path, err)
	}
	defer db.Close()
	var app int32
	var objects int
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return blank, fmt.Errorf("open store %s: %w", path, err)
	}
	version, err := userVersion(ctx, db)
	if err != nil {
		return blank, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&objects); err != nil {
		return blank, fmt.Errorf("open store %s: %w", path, err)
	}
	tables, err := tableNames(ctx, db)
	if err != nil {
		return blank, fmt.Errorf("open store %s: %w", path, err)
	}
	switch {
	case uint32(app) == ApplicationID:
		return ours, nil
	case app != 0:
		return blank, notAStore(path, fmt.Sprintf("its application_id is %#08x, not convo's (%#08x)%s", uint32(app), ApplicationID, holding(tables)))
	case objects == 0 && version != 0:
		return blank, notAStore(path, fmt.Sprintf("it holds no table but user_version %d, another program's", version))
	case objects == 0:
		return blank, nil
	case convoTables(tables):
		return ours, nil // made by a convo from before the mark
	}
	return blank, notAStore(path, strings.TrimPrefix(holding(tables), ", ")+" (another program's database?)")
}

func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, rows.Err()
}

// holding says which tables a database holds, at most ten named.
func holding(tables []string) string {
	switch {
	case len(tables) == 0:
		return ", it holds no table"
	case len(tables) > 10:
		return fmt.Sprintf(", it holds the tables %s and %d more", strings.Join(tables[:10], ", "), len(tables)-10)
	}
	return ", it holds the tables " + strings.Join(tables, ", ")
}

func notAStore(path, why string) error {
	return fmt.Errorf("sqlite %s: %w: %s; convo changed nothing in it", path, store.ErrNotAStore, why)
}

// createTableRE is compiled on first use: most commands never inspect a
// file, and start-up pays for every regexp compiled at init.
var createTableRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)CREATE\s+(VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)`)
})

// convoTables reports whether tables are a convo store's from before
// ApplicationID: conversations and records among them, and none that no
// migration creates.
func convoTables(tables []string) bool {
	known := map[string]bool{}
	names, _ := fs.Glob(migrationFS, "migrations/*.sql")
	for _, name := range names {
		body, _ := migrationFS.ReadFile(name)
		for _, m := range createTableRE().FindAllStringSubmatch(string(body), -1) {
			known[m[2]] = true
			if m[1] != "" { // FTS5's shadow tables
				for _, shadow := range []string{"data", "idx", "content", "docsize", "config"} {
					known[m[2]+"_"+shadow] = true
				}
			}
		}
	}
	for _, t := range tables {
		if !known[t] {
			return false
		}
	}
	return slices.Contains(tables, "conversations") && slices.Contains(tables, "records")
}
