package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/memlimit"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/internal/storeloc"
	"github.com/convo-cli/convo/pkg/store"
)

// copyOptions are the flags of `convo copy`.
type copyOptions struct {
	f            *Factory
	to           string // the target store, as --db takes it
	conversation string
	all, force   bool
	yes          bool // consent, accepted on every destructive command; --force replaces
}

// newCmdCopy builds `convo copy`. runF replaces copyRun in tests that check
// flag parsing alone.
func newCmdCopy(f *Factory, runF func(context.Context, *copyOptions) error) *cobra.Command {
	o := &copyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "copy --to STORE -c ID | --all [--force]",
		Short: "Copy conversations into another store, exactly as stored",
		Long: `Copy a conversation (-c) or every conversation (--all) of the --db store into
the store STORE names (` + storeloc.Schemes + `), byte
for byte: ids, records, metadata, summaries, merged ids, change sequences,
export cursors and answer schemas, so an incremental export from the new
store sends nothing the old one had sent. Each conversation is copied in one
transaction. SQLite to PostgreSQL and back: moving a team onto PostgreSQL is
this one command. The target is created when needed; the source never is.

A conversation that already exists in the target is an error (exit 1) unless
--force, which replaces it. With --all the others are still copied, each
refusal is said on stderr, and the exit status is 1 at the end.`,
		Example: `  convo copy --all --to postgres://convo@db.internal/convo
  convo --db postgres://convo@db.internal/convo copy -c demo --to ./demo.db --force`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case o.conversation != "" && o.all:
				return exitcode.Usagef("give -c or --all, not both")
			case o.conversation == "" && !o.all:
				return exitcode.Usagef("missing -c ID or --all: what to copy")
			}
			if o.conversation != "" {
				if err := flagvalue.ConversationID(o.conversation); err != nil {
					return err
				}
			}
			if err := storeloc.CheckGiven("--to", o.to); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return copyRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to copy")
	fl := cmd.Flags()
	fl.StringVar(&o.to, "to", "", "the store to copy into: "+storeloc.Schemes)
	fl.BoolVar(&o.all, "all", false, "copy every conversation")
	fl.BoolVar(&o.force, "force", false, "replace conversations that exist in the target")
	fl.BoolVar(&o.yes, "yes", false, "accepted as on every destructive command (--force is what replaces)")
	return cmd
}

func copyRun(ctx context.Context, o *copyOptions) error {
	f := o.f
	src, err := f.ReadStore(ctx)
	if err != nil {
		return err
	}
	if storeloc.Same(f.db, o.to) {
		return exitcode.Usagef("--to names the store copied from (%s)", src.Describe())
	}
	f.notePasswords(o.to)
	dst, err := openPooled(ctx, f, "--to", o.to, writeStore)
	if err != nil {
		return err
	}
	dst.Now = f.Now
	dst.Logger = f.logger()
	defer dst.Close()
	defer memlimit.Bulk()()

	if !o.all {
		n, err := store.Copy(ctx, src, dst, o.conversation, o.force)
		if err != nil {
			return err
		}
		signals.NoteStored(ctx, "copying %q", o.conversation)
		f.warnf("copied 1 conversation (%d record(s)) to %s", n, dst.Describe())
		return nil
	}
	tally, err := store.CopyAll(ctx, src, dst, o.force, func(conv string, n int, err error) {
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "convo: not copied: %s\n", exitcode.Message(err))
			return
		}
		signals.NotePartial(ctx, "the conversations said copied above are in %s, the others not", dst.Describe())
		f.warnf("copied %q (%d record(s))", conv, n)
	})
	if tally.Copied > 0 || err == nil {
		f.warnf("copied %d conversation(s) (%d record(s)) to %s", tally.Copied, tally.Records, dst.Describe())
	}
	switch {
	case errors.Is(err, context.Canceled) && tally.Copied > 0:
		// Not "nothing was written": the conversations said copied are.
		return &exitcode.PartialError{Err: err, Stored: fmt.Sprintf("the conversations said copied above are in %s, the others not", dst.Describe())}
	case err != nil:
		return err
	case tally.Failed > 0:
		return fmt.Errorf("%d of %d conversation(s) not copied (see above)", tally.Failed, tally.Failed+tally.Copied)
	}
	return nil
}
