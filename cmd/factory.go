package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/viper"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Factory hands every command what it shares: the streams, the clock, the id
// source, the settings, and the store, opened on first use only so that a
// command that needs none never pays for it (the gh CLI's Factory pattern).
type Factory struct {
	IO    *IOStreams
	Now   func() time.Time
	IDs   *transcript.IDs
	cfg   *viper.Viper
	db    string
	quiet bool
	store *sqlstore.Store
	// log is built from logOpts once the flags are read (see logger).
	log     *slog.Logger
	logOpts logOptions
}

// Store opens the store on first use, creating it when needed.
func (a *Factory) Store(ctx context.Context) (store.Store, error) {
	return a.open(ctx, true)
}

// ReadStore opens the store for a command that only reads: a SQLite store
// that does not exist is not created, and reads as empty (errNoStore).
func (a *Factory) ReadStore(ctx context.Context) (store.Store, error) {
	return a.open(ctx, false)
}

func (a *Factory) open(ctx context.Context, create bool) (store.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	spec := a.db
	if spec == "" {
		spec = defaultDBPath()
	}
	s, err := openStore(ctx, spec, create)
	if err != nil {
		return nil, err
	}
	s.Now = a.Now
	s.Logger = a.logger()
	a.logger().Debug("opened store", "store", s.Describe())
	a.store = s
	return s, nil
}

func (a *Factory) close() error {
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
