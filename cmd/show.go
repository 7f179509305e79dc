package cmd

import (
	"bufio"
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/store"
)

// DefaultSink is the export sink show's "-" marker follows.
const DefaultSink = "default"

// showOptions are the flags of `convo show`.
type showOptions struct {
	f            *Factory
	conversation string
	json         bool
	plain        bool
	verbose      bool

	// For tests: the width and colour a terminal would give, and the
	// time zone (nil: the local one).
	width  int
	colour *bool
	loc    *time.Location
}

// newCmdShow builds `convo show`. runF replaces showRun in tests that
// check flag parsing alone.
func newCmdShow(f *Factory, runF func(context.Context, *showOptions) error) *cobra.Command {
	o := &showOptions{f: f}
	cmd := &cobra.Command{
		Use:   "show -c ID [--verbose | --plain | --json]",
		Short: "Show a conversation for a person, with its markers",
		Example: `  convo show -c demo
  convo show -c demo --verbose
  convo show -c demo --plain | grep -c '\[user\]'
  convo show -c demo --json | jq -r '.message.role'`,
		Long: `Show a conversation for a person: per record its index, markers, role, local
time and attributes, then its text, wrapped to the terminal's width (80
columns when stdout is no terminal). A summary names the records it covers
("records 3-41 (39)"), a tool result the call it answers. Colour at a
terminal, unless NO_COLOR is set.

Markers: '*' the first record sent to the LLM, '^' the latest summary,
'-' the next record an incremental export to the default sink will send.

--verbose adds each record's id, its timing keys and its aux. --plain prints
the layout of earlier versions, one line per record with its id and
metadata (times in ms since the epoch), for scripts that parse it; --json
prints canonical JSONL, as get does.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := flagvalue.Conversation(o.conversation); err != nil {
				return err
			}
			if n := btoi(o.json) + btoi(o.plain) + btoi(o.verbose); n > 1 {
				return exitcode.Usagef("--verbose, --plain and --json are three layouts: give one")
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return showRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to show")
	cmd.Flags().BoolVar(&o.json, "json", false, "print canonical JSONL instead")
	cmd.Flags().BoolVar(&o.plain, "plain", false, "one line per record with id and metadata, the layout scripts parse")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "add each record's id, timing and aux")
	return cmd
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func showRun(ctx context.Context, o *showOptions) error {
	if o.json {
		return printStored(ctx, o.f, o.conversation, store.ReadOptions{})
	}
	s, err := o.f.ReadStore(ctx)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(o.f.IO.Out)
	err = show.Run(ctx, s, o.conversation, DefaultSink, func(hasSummary bool) show.Printer {
		if o.plain {
			return show.NewPlain(w)
		}
		width := o.width
		if width == 0 {
			width = o.f.IO.TerminalWidth()
		}
		colour := useColour(o.f.IO)
		if o.colour != nil {
			colour = *o.colour
		}
		return show.NewLayout(w, width, colour, o.verbose, hasSummary, o.loc)
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// useColour reports whether show may colour its output: stdout is a
// terminal, NO_COLOR is unset or empty (no-color.org) and TERM is not dumb.
func useColour(io *iostreams.IOStreams) bool {
	return io.StdoutIsTerminal() && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}
