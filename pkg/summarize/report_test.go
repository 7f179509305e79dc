package summarize

import (
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// The tally names every outcome, and the interrupted ones only when
// there were some.
func TestTallyText(t *testing.T) {
	tl := Tally{Conversations: 5, Summarized: 2, Nothing: 1, NotDue: 1, Held: 0, Failed: 1}
	want := "5 conversations in 1.5s: 2 summarized, 1 with nothing to cover, 1 under the trigger, 0 held by other runners, 1 failed"
	if got := tl.Text(1500 * time.Millisecond); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	tl.Interrupted = 1
	if got := tl.Text(time.Second); got != "5 conversations in 1s: 2 summarized, 1 with nothing to cover, 1 under the trigger, 0 held by other runners, 1 failed, 1 stopped midway" {
		t.Errorf("interrupted: %q", got)
	}
}

// The batch tallies name every count in its place; the note on results
// without a record only when there are some.
func TestBatchTallyText(t *testing.T) {
	tl := BatchTally{Conversations: 9, Requests: 1, Nothing: 2, NotDue: 3, Stored: 4, Already: 5, Changed: 6, Errored: 7, Failed: 8}
	for _, tc := range []struct{ name, got, want string }{
		{"out", tl.OutText(), "9 conversations: 1 requests written, 2 with nothing to cover, 3 under the trigger, 8 failed"},
		{"in", tl.InText(), "9 results: 4 stored, 5 summarized already, 6 conversations changed since the request, 7 errored or expired, 8 failed"},
		{"none unrecorded", tl.UnrecordedText(), ""},
		{"age", BatchAge(), "30 days"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
	tl.Unrecorded = 2
	want := "2 of the results answer requests this store holds no record of (an older convo's, another store's, or written over 30 days ago): applied with the summarize options given, which must be those of --batch-out"
	if got := tl.UnrecordedText(); got != want {
		t.Errorf("unrecorded: got %q\nwant %q", got, want)
	}
}

// A skipped result is named by its line, custom id, conversation ("?"
// when the line names none) and status.
func TestBatchOutcomeWhere(t *testing.T) {
	for _, tc := range []struct {
		out  BatchOutcome
		want string
	}{
		{BatchOutcome{Result: Result{Conversation: "demo"}, CustomID: "r-1", Line: 3, Status: "changed"}, "line 3 (r-1, conversation demo): changed"},
		{BatchOutcome{CustomID: "x", Line: 7, Status: "errored"}, "line 7 (x, conversation ?): errored"},
	} {
		if got := tc.out.Where(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// A dry run prints its text, a summary its record unless quiet; a result
// with neither prints nothing.
func TestResultPrint(t *testing.T) {
	sum := &transcript.Record{ID: "01JRZJ166J2WRMF990535EVSQ4", Conversation: "c",
		Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{"s"}}}
	for _, tc := range []struct {
		name     string
		res      Result
		quiet    bool
		out, enc string // substrings; "" : nothing
	}{
		{"dry run", Result{DryRun: "the text"}, false, "the text\n", ""},
		{"dry run, quiet", Result{DryRun: "the text"}, true, "the text\n", ""},
		{"summary", Result{Summary: sum}, false, "", `"id":"01JRZJ166J2WRMF990535EVSQ4"`},
		{"summary, quiet", Result{Summary: sum}, true, "", ""},
		{"skipped", Result{Skip: "nothing to cover"}, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, encOut strings.Builder
			enc := transcript.NewEncoder(&encOut)
			if err := tc.res.Print(&out, enc, tc.quiet); err != nil {
				t.Fatal(err)
			}
			if err := enc.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.out || (tc.enc == "") != (encOut.Len() == 0) || !strings.Contains(encOut.String(), tc.enc) {
				t.Errorf("out %q, records %q; want %q, one with %q", out.String(), encOut.String(), tc.out, tc.enc)
			}
		})
	}
}
