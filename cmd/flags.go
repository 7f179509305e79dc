package cmd

import (
	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
)

// noArgs refuses the arguments of a command that takes none (the flag
// values several commands share are read by internal/flagvalue).
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return exitcode.Usagef("unexpected argument %q", args[0])
	}
	return nil
}
