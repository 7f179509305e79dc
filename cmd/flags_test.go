package cmd

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
)

// execFlags runs a command built with a recording runF on args and checks
// the exit code its error maps to and a text the error holds.
func execFlags(t *testing.T, cmd *cobra.Command, code int, text string, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetFlagErrorFunc(flagError) // the root's, which Run's commands inherit
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	if got := exitcode.Of(err); got != code {
		t.Fatalf("%s: exit %d (%v), want %d", strings.Join(args, " "), got, err, code)
	}
	if err != nil && !strings.Contains(err.Error(), text) {
		t.Fatalf("%s: error %q lacks %q", strings.Join(args, " "), err, text)
	}
}

// appendTo appends JSONL lines to conv through the real command.
func appendTo(t *testing.T, conv string, lines ...string) *Factory {
	t.Helper()
	f, _, _ := testFactory(t, strings.Join(lines, "\n")+"\n")
	if err := runCmd(t, f, "append", "-q", "-c", conv); err != nil {
		t.Fatal(err)
	}
	f.quiet = false
	return f
}

// chat is a conversation with a system prompt, two turns and a summary of
// the first (ids end in 1 to 6, creation times in 1 to 6).
var chat = []string{
	`{"id":"01JRZJ166J2WRMF990535EVSQ1","message":{"role":"system","contents":["Be brief."]},"metadata":{"timing":{"creation":1}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ2","message":{"role":"user","contents":["Weather in Paris?"]},"metadata":{"timing":{"creation":2}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ3","message":{"role":"assistant","contents":["Sunny."]},"metadata":{"timing":{"creation":3}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ4","message":{"role":"summary","contents":["Paris is sunny."]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSQ2","01JRZJ166J2WRMF990535EVSQ3"],"timing":{"creation":4}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ5","message":{"role":"user","contents":["And Lisbon?"]},"metadata":{"timing":{"creation":5}}}`,
	`{"id":"01JRZJ166J2WRMF990535EVSQ6","message":{"role":"assistant","contents":["Rainy."]},"metadata":{"timing":{"creation":6}}}`,
}
