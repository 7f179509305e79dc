package cmd

import (
	"context"

	"github.com/spf13/cobra"
)

// newCmdMigrate builds `convo migrate`: it brings a store an older convo
// made up to date (what any command that writes does first), so that
// commands that only read, which never migrate, can read it.
func newCmdMigrate(f *Factory, runF func(context.Context, *Factory) error) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Bring a store an older convo made up to date (search's index among it)",
		Long: `Bring the store up to date: the migrations a newer convo adds (such as the
search index, which indexes every stored record) are applied, each in one
transaction. Any command that writes does this first; commands that only
read (list, get, search) never do, and refuse an outdated store.
A store that is up to date is left as it is.`,
		Example: `  convo migrate
  convo migrate --db postgres://convo@db.internal/convo`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), f)
			}
			return migrateRun(cmd.Context(), f)
		},
	}
}

func migrateRun(ctx context.Context, f *Factory) error {
	s, err := f.ExistingStore(ctx)
	if err != nil {
		return notFoundIn(err, nil)
	}
	f.warnf("%s is up to date", s.Describe())
	return nil
}
