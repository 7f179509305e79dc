package cmd

// PostgreSQL's connections: how many one convo opens (--db-max-conns),
// and an open that the server refused for a moment tried again.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/convo-cli/convo/internal/storeloc"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/postgres"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/tokens"
)

// atLeast is an int flag that refuses values under min as it is set:
// from the command line, the environment or the config file, which
// loadConfig then names.
type atLeast struct {
	v   *int
	min int
	why string
}

func (f atLeast) String() string { return strconv.Itoa(*f.v) }
func (f atLeast) Type() string   { return "int" }

func (f atLeast) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case err != nil:
		return errors.New("want a whole number")
	case n < f.min:
		return fmt.Errorf("want %d or more (%s)", f.min, f.why)
	}
	*f.v = n
	return nil
}

// maxConnsFlag is --db-max-conns, over a.dbMaxConns.
func maxConnsFlag(a *Factory) atLeast {
	a.dbMaxConns = postgres.DefaultMaxConns
	return atLeast{&a.dbMaxConns, postgres.MinMaxConns, "summarize --all holds one connection for its claims"}
}

// openPooled opens the store spec (openStoreAs) and caps its connections
// at --db-max-conns. A PostgreSQL server that could not be reached (too
// many clients, restarting) is tried again with store.DefaultBackoff.
func openPooled(ctx context.Context, a *Factory, flag, spec string, m storeMode) (*sqlstore.Store, error) {
	var s *sqlstore.Store
	transient := func(error) bool { return false }
	if storeloc.IsPostgres(spec) {
		transient = postgres.Transient
	}
	err := store.DefaultBackoff.Do(ctx, transient, func(attempt int, err error) {
		a.logger().Warn("store out of reach; trying again", "attempt", attempt, "error", err.Error())
	}, func() (err error) {
		s, err = openStoreAs(ctx, flag, spec, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	if storeloc.IsPostgres(spec) {
		postgres.SetMaxConns(s, a.dbMaxConns)
	}
	// Every write keeps the token figures list shows by the default
	// tokenizer, in its own transaction: no list counts records.
	s.SetFigures(tokens.Default, figureCounter.Stored)
	s.SetFigureRecords(figureCounter.InHand)
	return s, nil
}

// figureCounter counts the tokens of the figures every write keeps, by
// the default tokenizer, made on first use: a write that changes no view
// loads no tokenizer.
var figureCounter = tokens.NewLazy(tokens.Default)
