package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/pkg/store"
)

// schemaOptions are the flags of `convo schema set|unset|show`.
type schemaOptions struct {
	f            *Factory
	conversation string
	file         string // set only
}

// newCmdSchema builds `convo schema` and its subcommands.
func newCmdSchema(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schema set|unset|show -c ID",
		Short: "Keep the JSON Schema every answer of a conversation must match",
		Long: `A conversation's answer schema (JSON Schema 2020-12) makes every later
'convo ask' on it ask for a structured answer and check it, unless the ask
gives its own --schema or --no-schema. The schema must be self-contained: no
provider follows a $ref to another file. Clearing the conversation removes it.`,
		Example: `  convo schema set -c demo city.schema.json
  convo schema show -c demo
  convo schema unset -c demo`,
		// A bare or mistyped subcommand is a usage error, not help and exit 0.
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return exitcode.Usagef("unknown command %q for convo schema: want set, unset or show", args[0])
			}
			return exitcode.Usagef("convo schema needs a command: set, unset or show")
		},
	}
	cmd.AddCommand(newCmdSchemaSet(f, nil), newCmdSchemaUnset(f, nil), newCmdSchemaShow(f, nil))
	return cmd
}

// newSchemaCmd builds one subcommand of `convo schema`; runF, when set,
// replaces run in tests that check flag parsing alone.
func newSchemaCmd(f *Factory, use, short, example string, args cobra.PositionalArgs, run, runF func(context.Context, *schemaOptions) error) *cobra.Command {
	o := &schemaOptions{f: f}
	cmd := &cobra.Command{
		Use: use, Short: short, Example: example, Args: args,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := flagvalue.Conversation(o.conversation); err != nil {
				return err
			}
			if len(args) == 1 {
				o.file = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return run(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation whose schema this is (created on first use by set)")
	return cmd
}

func newCmdSchemaSet(f *Factory, runF func(context.Context, *schemaOptions) error) *cobra.Command {
	return newSchemaCmd(f, "set -c ID FILE", "Store FILE as the schema of every later answer", "  convo schema set -c demo city.schema.json\n  convo ask -c demo --provider openai 'Where is the Louvre?'   # answers as city.schema.json says", oneArg("FILE"), schemaSetRun, runF)
}

func newCmdSchemaUnset(f *Factory, runF func(context.Context, *schemaOptions) error) *cobra.Command {
	return newSchemaCmd(f, "unset -c ID", "Remove the conversation's schema", "  convo schema unset -c demo", noArgs, schemaUnsetRun, runF)
}

func newCmdSchemaShow(f *Factory, runF func(context.Context, *schemaOptions) error) *cobra.Command {
	return newSchemaCmd(f, "show -c ID", "Print the conversation's schema as it was given", "  convo schema show -c demo > city.schema.json", noArgs, schemaShowRun, runF)
}

// schemaSetRun checks and stores the schema; it prints nothing.
func schemaSetRun(ctx context.Context, o *schemaOptions) error {
	sch, err := flagvalue.Schema("", o.file)
	if err != nil {
		return err
	}
	s, err := o.f.Store(ctx)
	if err != nil {
		return err
	}
	return s.SetSchema(ctx, o.conversation, store.ConversationSchema{Name: sch.Name, Body: sch.Body})
}

func schemaUnsetRun(ctx context.Context, o *schemaOptions) error {
	var had bool
	s, err := o.f.ExistingStore(ctx)
	if err == nil {
		had, err = s.DeleteSchema(ctx, o.conversation)
	} else if errors.Is(err, errNoStore) {
		err = nil // a store never written to holds no schema; none is made
	}
	if err == nil && !had {
		o.f.warnf("conversation %q had no schema", o.conversation)
	}
	return err
}

// schemaShowRun prints the stored document; none is not found (exit 4).
func schemaShowRun(ctx context.Context, o *schemaOptions) error {
	s, err := o.f.ReadStore(ctx)
	if err != nil {
		return err
	}
	sc, ok, err := s.Schema(ctx, o.conversation)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("conversation %q has no schema: %w", o.conversation, store.ErrNotFound)
	}
	body := sc.Body
	if len(body) > 0 && body[len(body)-1] != '\n' {
		body = append(body, '\n')
	}
	_, err = o.f.IO.Out.Write(body)
	return err
}

// schemaAlias is ask's hidden --set-schema FILE and --unset-schema: what
// `convo schema set|unset` does, kept for one release.
func (o *askOptions) schemaAlias(ctx context.Context) error {
	if err := flagvalue.Conversation(o.conversation); err != nil {
		return err
	}
	switch {
	case o.setSchema != "" && o.unsetSchema:
		return exitcode.Usagef("--set-schema and --unset-schema do not go together")
	case len(o.args) > 0 || o.schema != "" || o.noSchema:
		return exitcode.Usagef("--set-schema and --unset-schema change the stored schema and ask nothing: ask in another call")
	}
	so := &schemaOptions{f: o.f, conversation: o.conversation, file: o.setSchema}
	if o.unsetSchema {
		return schemaUnsetRun(ctx, so)
	}
	return schemaSetRun(ctx, so)
}

// oneArg wants exactly one argument, named what in errors.
func oneArg(what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return exitcode.Usagef("want one %s argument, got %d", what, len(args))
		}
		return nil
	}
}
