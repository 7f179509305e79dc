package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
)

// This file types the errors cobra finds in a command line as usage
// errors (exit 2); internal/exitcode maps every error to its status.

// typeUsageErrors makes every error cobra itself finds in a command line a
// usageError where it arises: flag errors through the root's
// FlagErrorFunc (set in newRootCmd), argument errors by wrapping each
// command's Args, cobra's own commands (completion) included. exitCode
// then never reads an error's text.
func typeUsageErrors(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				var ue *exitcode.UsageError
				if err := args(cmd, a); err != nil && !errors.As(err, &ue) {
					return &exitcode.UsageError{Err: err}
				} else {
					return err
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// flagError is every command's FlagErrorFunc (the root's, inherited): a
// flag cobra could not parse is a usage error.
func flagError(cmd *cobra.Command, err error) error {
	if !cmd.HasParent() && cmd.HasSubCommands() && cmd.Flags().NArg() > 0 {
		// convo apend -c x: the root parsed the subcommand's flags because
		// no command matched; that is the mistake to name.
		return unknownCommand(cmd, cmd.Flags().Args())
	}
	return &exitcode.UsageError{Err: err}
}

// unknownCommand is the root's Args: a first argument that names no
// command. (Cobra's own check runs only when Args is unset, and returns an
// untyped error.)
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return &exitcode.UsageError{Err: errors.New(msg)}
}
