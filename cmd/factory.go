package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/viper"

	"github.com/convo-cli/convo/pkg/store"
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
	store *store.Store
	// log is built from logOpts once the flags are read (see logger).
	log     *slog.Logger
	logOpts logOptions
}

// Store opens the store on first use.
func (a *Factory) Store(ctx context.Context) (*store.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	path := a.db
	if path == "" {
		path = defaultDBPath()
	}
	s, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	s.Now = a.Now
	s.Logger = a.logger()
	a.logger().Debug("opened store", "path", path)
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
