package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/spf13/cobra"
)

// Every command a person can run shows examples in its --help (and so in
// its man page).
func TestEveryCommandHasExamples(t *testing.T) {
	f, _, _ := testFactory(t, "")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Deprecated != "" || c.IsAdditionalHelpTopicCommand() {
			return // a help topic is read, not run
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no examples", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(f))
}

// --help lists a boolean flag as a plain flag: pflag's --json[=true|false]
// reads as if it wanted a value.
func TestHelpShowsBooleanFlagsPlain(t *testing.T) {
	for _, args := range [][]string{{"list", "--help"}, {"summarize", "--help"}, {"--help"}} {
		io, out, _ := iostreams.Test("")
		if code := Run(context.Background(), args, io); code != exitcode.OK {
			t.Fatalf("%v: exit %d", args, code)
		}
		if strings.Contains(out.String(), "[=true|false]") || strings.Contains(out.String(), "[=false]") {
			t.Errorf("%v shows a boolean flag with a value:\n%s", args, out)
		}
		if !strings.Contains(out.String(), "  -q, --quiet   ") {
			t.Errorf("%v: no plain -q, --quiet:\n%s", args, out)
		}
	}
}

// A usage error points at the help of the command that was run, where its
// flags and examples are.
func TestUsageErrorPointsAtCommandHelp(t *testing.T) {
	tests := []struct {
		args []string
		help string
	}{
		{[]string{"get", "-c"}, "Run 'convo get --help' for usage.\n"},
		{[]string{"get"}, "Run 'convo get --help' for usage.\n"},
		{[]string{"schema", "set", "-c", "x"}, "Run 'convo schema set --help' for usage.\n"},
		{[]string{"list", "--since", "soon"}, "Run 'convo list --help' for usage.\n"},
		{[]string{"apend", "-c", "x"}, "Run 'convo --help' for usage.\n"},
	}
	for _, tt := range tests {
		io, _, errOut := iostreams.Test("")
		if code := Run(context.Background(), tt.args, io); code != exitcode.Usage {
			t.Errorf("%v: exit %d, want %d", tt.args, code, exitcode.Usage)
		}
		if !strings.HasSuffix(errOut.String(), tt.help) {
			t.Errorf("%v: stderr %q, want it to end %q", tt.args, errOut, tt.help)
		}
	}
}
