package postgres

import (
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/jackc/pgx/v5/pgconn"
)

// noDatabase is err, or store.ErrNoStore (wrapped) when the server said it
// has no database of that name: convo makes tables, not databases (spec
// section 3), so every command finds no store there.
func noDatabase(err error, database string) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "3D000" { // invalid_catalog_name
		return fmt.Errorf("%w: the server has no database %q; create it first (createdb)", store.ErrNoStore, database)
	}
	return err
}
