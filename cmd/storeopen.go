package cmd

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/convo-cli/convo/internal/config"
	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/postgres"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
)

// storeSchemes are the STORE forms --db, CONVO_DB, the config's db and copy's
// --to take.
const storeSchemes = "a file path, file:PATH, postgres://... or postgresql://..."

// schemeRE recognises a URL's scheme ("name:/..."), so that a URL of a
// backend we do not have is refused rather than taken for a file name.
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:/`)

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
	s, err := openBackend(ctx, flag, spec, m)
	if errors.Is(err, store.ErrNotAStore) || errors.Is(err, store.ErrBadLocation) {
		return nil, fmt.Errorf("%s: %w", flag, err) // exit 2: see exitCode
	}
	return s, err
}

func openBackend(ctx context.Context, flag, spec string, m storeMode) (*sqlstore.Store, error) {
	if err := checkLocation(flag, spec); err != nil {
		return nil, err
	}
	if isPostgres(spec) {
		return [...]func(context.Context, string) (*sqlstore.Store, error){
			readStore: postgres.OpenRead, changeStore: postgres.OpenExisting, writeStore: postgres.Open,
		}[m](ctx, spec)
	}
	path := strings.TrimPrefix(strings.TrimPrefix(spec, "file:"), "//")
	return [...]func(context.Context, string) (*sqlstore.Store, error){
		readStore: sqlite.OpenRead, changeStore: sqlite.OpenExisting, writeStore: sqlite.Open,
	}[m](ctx, path)
}

// checkLocation refuses, naming flag, a location no store can be opened at
// for its form alone: a URL of a scheme convo has no backend for, or one
// that does not parse, file: without a path, a PostgreSQL keyword/value
// string (never taken for a file name, its password masked).
func checkLocation(flag, spec string) error {
	switch {
	case isPostgres(spec):
		if err := postgres.CheckURL(spec); err != nil {
			return fmt.Errorf("%s: %w", flag, err) // exit 2: see exitCode
		}
	case strings.HasPrefix(spec, "file:"):
		if strings.TrimPrefix(strings.TrimPrefix(spec, "file:"), "//") == "" {
			return exitcode.Usagef("%s file: names no file", flag)
		}
	case schemeRE.MatchString(spec):
		scheme, _, _ := strings.Cut(spec, ":")
		return exitcode.Usagef("%s: unsupported store %q: use %s", flag, scheme+":", storeSchemes)
	case isPGKeywords(spec):
		return exitcode.Usagef("%s %s: a PostgreSQL keyword/value string is not a store: give it as a postgres:// URL",
			flag, postgres.Redact(spec))
	}
	return nil
}

func isPostgres(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// pgKeywordRE recognises a libpq keyword/value connection string
// ("host=db user=convo password=..."), which --db does not take.
var pgKeywordRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|\s)(host|hostaddr|port|dbname|user|password|sslmode|passfile)\s*=`)
})

// isPGKeywords reports whether spec is a libpq keyword/value string; the
// expression is compiled only for a spec that holds an "=".
func isPGKeywords(spec string) bool {
	return strings.Contains(spec, "=") && pgKeywordRE().MatchString(spec)
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
	if isPostgres(spec) {
		return postgres.Redact(spec)
	}
	return spec
}

// notePasswords makes stderr mask the passwords a PostgreSQL store
// location holds (the URL's, PGPASSWORD's) from here on. Other locations
// hold none.
func (a *Factory) notePasswords(spec string) {
	if isPostgres(spec) || isPGKeywords(spec) {
		a.secrets.NotePasswords(postgres.Secrets(spec)...)
	}
}
