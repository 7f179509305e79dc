package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

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

// errNoStore is a read of a SQLite store that does not exist: a command that
// only reads creates nothing and finds nothing there. It is a not-found.
var errNoStore = fmt.Errorf("no such store (nothing was ever stored there): %w", store.ErrNotFound)

// openStore opens the store spec names. With create false, a SQLite file
// that does not exist is errNoStore (wrapped) and nothing is created; a
// PostgreSQL database always has its tables created on first use.
func openStore(ctx context.Context, spec string, create bool) (*sqlstore.Store, error) {
	switch {
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		return postgres.Open(ctx, spec)
	case strings.HasPrefix(spec, "file:"):
		spec = strings.TrimPrefix(strings.TrimPrefix(spec, "file:"), "//")
		if spec == "" {
			return nil, usageErrorf("--db file: names no file")
		}
	case schemeRE.MatchString(spec):
		scheme, _, _ := strings.Cut(spec, ":")
		return nil, usageErrorf("--db: unsupported store %q: use %s", scheme+":", storeSchemes)
	}
	if !create {
		s, err := sqlite.OpenExisting(ctx, spec)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("sqlite %s: %w", spec, errNoStore)
		}
		return s, err
	}
	return sqlite.Open(ctx, spec)
}

// notFoundIn names the store in a not-found error, so that a typo in --db
// does not read as a missing conversation of the right store.
func notFoundIn(err error, s store.Store) error {
	if s == nil || !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return fmt.Errorf("%w (in %s)", err, s.Describe())
}
