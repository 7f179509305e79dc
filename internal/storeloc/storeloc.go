// Package storeloc reads a store location as --db, CONVO_DB, the config's
// db and copy's --to give it: which backend it names, the file a SQLite
// location names, a form no store can be opened at refused before any
// store is, and whether two locations name the same store.
package storeloc

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/convo-cli/convo/internal/config"
	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store/postgres"
)

// Schemes are the forms a location takes, for messages and help.
const Schemes = "a file path, file:PATH, postgres://... or postgresql://..."

// schemeRE recognises a URL's scheme ("name:/..."), so that a URL of a
// backend we do not have is refused rather than taken for a file name.
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:/`)

// IsPostgres reports whether spec is a PostgreSQL URL.
func IsPostgres(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// pgKeywordRE recognises a libpq keyword/value connection string
// ("host=db user=convo password=..."), which --db does not take.
var pgKeywordRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|\s)(host|hostaddr|port|dbname|user|password|sslmode|passfile)\s*=`)
})

// IsPGKeywords reports whether spec is a libpq keyword/value string; the
// expression is compiled only for a spec that holds an "=".
func IsPGKeywords(spec string) bool {
	return strings.Contains(spec, "=") && pgKeywordRE().MatchString(spec)
}

// Path is the file a SQLite location names (file:PATH, file://PATH or
// PATH).
func Path(spec string) string {
	return strings.TrimPrefix(strings.TrimPrefix(spec, "file:"), "//")
}

// Check refuses, naming flag, a location no store can be opened at for
// its form alone: a URL of a scheme convo has no backend for, or one that
// does not parse, file: without a path, a PostgreSQL keyword/value string
// (never taken for a file name, its password masked).
func Check(flag, spec string) error {
	switch {
	case IsPostgres(spec):
		if err := postgres.CheckURL(spec); err != nil {
			return fmt.Errorf("%s: %w", flag, err) // exit 2: store.ErrBadLocation
		}
	case strings.HasPrefix(spec, "file:"):
		if Path(spec) == "" {
			return exitcode.Usagef("%s file: names no file", flag)
		}
	case schemeRE.MatchString(spec):
		scheme, _, _ := strings.Cut(spec, ":")
		return exitcode.Usagef("%s: unsupported store %q: use %s", flag, scheme+":", Schemes)
	case IsPGKeywords(spec):
		return exitcode.Usagef("%s %s: a PostgreSQL keyword/value string is not a store: give it as a postgres:// URL",
			flag, postgres.Redact(spec))
	}
	return nil
}

// CheckGiven is Check of a location that must be given (copy's --to).
func CheckGiven(flag, spec string) error {
	if spec == "" {
		return exitcode.Usagef("missing %s STORE: %s", flag, Schemes)
	}
	return Check(flag, spec)
}

// Same reports whether location to names the store db names ("" for the
// default): copying a store onto itself would only refuse, or with
// --force rewrite, every conversation while reading it.
func Same(db, to string) bool {
	if db == "" {
		db = config.DefaultDB()
	}
	if IsPostgres(db) || IsPostgres(to) {
		return db == to
	}
	a, errA := os.Stat(Path(db))
	b, errB := os.Stat(Path(to))
	return errA == nil && errB == nil && os.SameFile(a, b)
}
