package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/viper"

	"github.com/convo-cli/convo/internal/config"
	"github.com/convo-cli/convo/internal/secrets"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Factory hands every command what it shares, and nothing else: the
// streams, the clock, the id source, the settings, the logger, the
// secrets its output hides, the providers (provider.go), and the store,
// opened on first use only so that a command that needs none never pays
// for it (the gh CLI's Factory pattern). What one command needs of them
// is that command's function, taking the Factory, not a method of it.
type Factory struct {
	IO  *iostreams.IOStreams
	Now func() time.Time
	IDs *transcript.IDs
	cfg *viper.Viper
	// sources names where loadConfig found each flag it set (the
	// environment or the config file), for the errors about them.
	sources map[string]string
	db      string
	quiet   bool
	// dbMaxConns caps a PostgreSQL store's connections (--db-max-conns).
	dbMaxConns int
	store      *sqlstore.Store
	// storeMode is what the open store was opened for; storeCap, when
	// set, bounds what any open of this command may do (a dry run's
	// Store is opened to read only).
	storeMode storeMode
	storeCap  *storeMode
	retired   []*sqlstore.Store
	// secrets are the store passwords and provider keys that stderr and
	// the store never show (redact.go).
	secrets secrets.Secrets
	// log is built from logOpts once the flags are read (see logger).
	log     *slog.Logger
	logOpts logOptions
}

// Store opens the store on first use, creating it when needed, for a
// command that may store something new.
func (a *Factory) Store(ctx context.Context) (store.Store, error) {
	return a.open(ctx, writeStore)
}

// ExistingStore opens the store for a command that changes only what is
// stored: a store that does not exist is not created, and is errNoStore.
func (a *Factory) ExistingStore(ctx context.Context) (store.Store, error) {
	return a.open(ctx, changeStore)
}

// ReadStore opens the store for a command that only reads: a store that
// does not exist is not created, and is errNoStore; one that does is
// opened read-only, neither migrated nor switched to WAL.
func (a *Factory) ReadStore(ctx context.Context) (store.Store, error) {
	return a.open(ctx, readStore)
}

// capStore bounds what every later open of the store may do: a command
// that decides from its flags that it writes nothing (a dry run) opens
// read-only, whichever of the methods above its code calls.
func (a *Factory) capStore(m storeMode) { a.storeCap = &m }

func (a *Factory) open(ctx context.Context, m storeMode) (store.Store, error) {
	if a.storeCap != nil {
		m = min(m, *a.storeCap)
	}
	if a.store != nil && a.storeMode >= m {
		return a.store, nil
	}
	spec := a.db
	if spec == "" {
		spec = config.DefaultDB()
	}
	a.notePasswords(spec)
	s, err := openPooled(ctx, a, "--db", spec, m)
	if err != nil {
		return nil, err
	}
	if a.store != nil { // opened before for less: closed at the end, as it may be in use
		a.retired = append(a.retired, a.store)
	}
	s.Now = a.Now
	s.Logger = a.logger()
	a.logger().Debug("opened store", "store", s.Describe())
	a.store, a.storeMode = s, m
	return s, nil
}

func (a *Factory) close() error {
	for _, s := range a.retired {
		s.Close()
	}
	if a.store == nil {
		return nil
	}
	return a.store.Close()
}

func (a *Factory) nowMillis() int64 { return a.Now().UnixMilli() }

// warnf tells the person something on stderr, unless --quiet.
func (a *Factory) warnf(format string, args ...any) {
	if !a.quiet {
		fmt.Fprintf(a.IO.ErrOut, "convo: "+format+"\n", args...)
	}
}

// alertf tells the person, --quiet or not, what they must know: that what
// was stored or printed may not be what they meant, or what it needs to
// work (-q silences echoes and progress, never these).
func (a *Factory) alertf(format string, args ...any) {
	fmt.Fprintf(a.IO.ErrOut, "convo: "+format+"\n", args...)
}
