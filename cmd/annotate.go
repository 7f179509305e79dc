package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/transcript"
)

// annotateOptions are the flags of `convo annotate`.
type annotateOptions struct {
	f                     *Factory
	conversation, id      string
	timing, aux, unsetAux []string
	ref                   transcript.Ref         // what --id names
	an                    *transcript.Annotation // what the other flags change
}

// newCmdAnnotate builds `convo annotate`. runF replaces annotateRun in
// tests that check flag parsing alone.
func newCmdAnnotate(f *Factory, runF func(context.Context, *annotateOptions) error) *cobra.Command {
	o := &annotateOptions{f: f}
	cmd := &cobra.Command{
		Use:   "annotate -c ID --id RECORD [--timing KEY=MS]... [--aux KEY=JSON]... [--unset-aux KEY]...",
		Short: "Add or change the metadata of a stored record",
		Long: `Add or change the metadata of a stored record: what happened after it was
written (a voice assistant sets playStart and playEnd when playback happens).
The message itself never changes. The record counts as changed for an
incremental export, which sends it again, whole. Prints the record as stored.

RECORD is ` + transcript.RefHelp + `.
An unknown timing key is invalid input (exit 3).`,
		Example: `  convo annotate -c demo --id last-assistant --timing playStart=now
  convo annotate -c demo --id 01JRZJ166J2WRMF990535EVSQS --aux rating=5 --unset-aux draft`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flagvalue.Conversation(o.conversation); err != nil {
				return err
			}
			var err error
			if o.ref, err = flagvalue.Ref("--id", o.id); err != nil {
				return err
			}
			if o.an, err = flagvalue.Annotation(o.timing, o.aux, o.unsetAux, f.nowMillis()); err != nil {
				return err
			}
			if o.an.Empty() {
				return exitcode.Usagef("nothing to change: give --timing, --aux or --unset-aux")
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return annotateRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation holding the record")
	fl := cmd.Flags()
	fl.StringVar(&o.id, "id", "", "the record: "+transcript.RefHelp)
	fl.StringArrayVar(&o.timing, "timing", nil, "set metadata.timing KEY to MS (ms since the epoch, or now); repeatable")
	fl.StringArrayVar(&o.aux, "aux", nil, "set metadata.aux KEY to a JSON value; repeatable")
	fl.StringArrayVar(&o.unsetAux, "unset-aux", nil, "remove metadata.aux KEY; repeatable")
	return cmd
}

func annotateRun(ctx context.Context, o *annotateOptions) error {
	s, err := o.f.ExistingStore(ctx)
	if err != nil {
		return err
	}
	body, err := s.Annotate(ctx, o.conversation, string(o.ref), o.an)
	if err != nil || o.f.quiet {
		return err
	}
	signals.NoteStored(ctx, "annotating the record")
	enc := transcript.NewEncoder(o.f.IO.Out)
	return exitcode.AfterCommit(errors.Join(enc.WriteLine(body), enc.Flush()))
}
