package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/internal/config"
	"github.com/convo-cli/convo/internal/storeloc"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/postgres"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// errNoStore is a store never made (a SQLite file not there, a PostgreSQL
// database without convo's tables), opened by a command that creates none:
// it finds nothing there. It is a not-found.
var errNoStore = store.ErrNoStore

// storeMode is what opening the store may do to it.
type storeMode int

const (
	// readStore: a command that only reads. It never creates, migrates or
	// changes the store (SQLite opens it read-only).
	readStore storeMode = iota
	// changeStore: a command that changes only what is stored (clear,
	// annotate, fork, rewind, prune, a dry run). It never creates a store.
	changeStore
	// writeStore: a command that may store something new. It creates the
	// store when missing.
	writeStore
)

// openStoreAs opens the store spec, given as flag, as m allows. A store
// that is not there is errNoStore (wrapped) unless m is writeStore; a spec
// that names no store convo can use (a malformed URL, another program's
// database, a PostgreSQL keyword/value string) is a usage error naming
// flag, the location's passwords masked.
func openStoreAs(ctx context.Context, flag, spec string, m storeMode) (*sqlstore.Store, error) {
	// Check's errors name flag already: wrapping them again said "--db: --db:".
	if err := storeloc.Check(flag, spec); err != nil {
		return nil, err
	}
	s, err := openBackend(ctx, spec, m)
	if errors.Is(err, store.ErrNotAStore) || errors.Is(err, store.ErrBadLocation) {
		return nil, fmt.Errorf("%s: %w", flag, err) // exit 2: see exitCode
	}
	return s, err
}

func openBackend(ctx context.Context, spec string, m storeMode) (*sqlstore.Store, error) {
	if storeloc.IsPostgres(spec) {
		return [...]func(context.Context, string) (*sqlstore.Store, error){
			readStore: postgres.OpenRead, changeStore: postgres.OpenExisting, writeStore: postgres.Open,
		}[m](ctx, spec)
	}
	path := storeloc.Path(spec)
	return [...]func(context.Context, string) (*sqlstore.Store, error){
		readStore: sqlite.OpenRead, changeStore: sqlite.OpenExisting, writeStore: sqlite.Open,
	}[m](ctx, path)
}

// notFoundIn names the store in a not-found error, so that a typo in --db
// does not read as a missing conversation of the right store.
func notFoundIn(err error, s store.Store) error {
	if s == nil || !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return fmt.Errorf("%w (in %s)", err, s.Describe())
}

// storeSpec is the store --db names, for a message: its passwords masked.
func (a *Factory) storeSpec() string {
	spec := a.db
	if spec == "" {
		spec = config.DefaultDB()
	}
	if storeloc.IsPostgres(spec) {
		return postgres.Redact(spec)
	}
	return spec
}

// notePasswords makes stderr mask the passwords a PostgreSQL store
// location holds (the URL's, PGPASSWORD's) from here on. Other locations
// hold none.
func (a *Factory) notePasswords(spec string) {
	if storeloc.IsPostgres(spec) || storeloc.IsPGKeywords(spec) {
		a.secrets.NotePasswords(postgres.Secrets(spec)...)
	}
}
