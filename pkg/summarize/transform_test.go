package summarize

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/transcript"
)

// messages is n alternating bare messages, one JSON line each.
func messages(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"role":%q,"content":"message %d about the Lisbon trip"}`+"\n", []string{"user", "assistant"}[i%2], i)
	}
	return b.String()
}

// readAll parses the transcript Transform wrote.
func readAll(t *testing.T, out string) []transcript.Record {
	t.Helper()
	var recs []transcript.Record
	for line := range strings.Lines(out) {
		r, err := transcript.ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestTransform(t *testing.T) {
	var out strings.Builder
	res, err := Transform(context.Background(), newRunner(t, &extractive.Summarizer{Counter: counter(t)}), strings.NewReader(messages(9)), &out)
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, out.String())
	// 9 messages; the last turn (a user waiting for an answer, and the turn
	// before it with --keep-last 1) kept: the summary after record 6.
	if len(recs) != 10 || recs[6].Message.Role != transcript.RoleSummary || len(recs[6].Metadata.SummaryIDs) != 6 {
		t.Fatalf("transcript:\n%s", out.String())
	}
	for _, r := range recs {
		if r.Conversation != transcript.DefaultConversation {
			t.Fatalf("conversation %q, want %q", r.Conversation, transcript.DefaultConversation)
		}
	}
	if res.Summary == nil || res.Summary.ID != recs[6].ID || res.Conversation != "stdin" {
		t.Errorf("result %+v", res)
	}
}

// TestTransformEarlierSummary: the records before the latest summary pass
// through as they were; only what follows it is summarized.
func TestTransformEarlierSummary(t *testing.T) {
	var first strings.Builder
	r := newRunner(t, &fake{})
	if _, err := Transform(context.Background(), r, strings.NewReader(messages(10)), &first); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	in := first.String() + messages(6)
	res, err := Transform(context.Background(), r, strings.NewReader(in), &out)
	if err != nil || res.Summary == nil {
		t.Fatalf("%+v, %v", res, err)
	}
	if !strings.HasPrefix(out.String(), first.String()[:strings.Index(first.String(), `"role":"summary"`)]) {
		t.Errorf("records before the first summary changed:\n%s", out.String())
	}
	recs := readAll(t, out.String())
	if n := strings.Count(out.String(), `"role":"summary"`); n != 2 || recs[len(recs)-1].Message.Role == transcript.RoleSummary {
		t.Fatalf("%d summaries:\n%s", n, out.String())
	}
	if res.Summary.Metadata.SummaryIDs[0] != readAll(t, first.String())[8].ID {
		t.Errorf("the new summary does not cover the previous one first: %v", res.Summary.Metadata.SummaryIDs)
	}
}

func TestTransformDryRunWritesNothing(t *testing.T) {
	var first strings.Builder
	if _, err := Transform(context.Background(), newRunner(t, &fake{}), strings.NewReader(messages(10)), &first); err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, nil)
	r.DryRun = true
	var out strings.Builder
	res, err := Transform(context.Background(), r, strings.NewReader(first.String()+messages(6)), &out)
	if err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || !strings.Contains(res.DryRun, "Previous summary:\n- the gist of stdin") {
		t.Fatalf("out %q, dry run %q", out.String(), res.DryRun)
	}
}

func TestTransformPassesThrough(t *testing.T) {
	r := newRunner(t, &fake{})
	r.Options.IfOver = 100000
	var out strings.Builder
	res, err := Transform(context.Background(), r, strings.NewReader(messages(5)), &out)
	if err != nil || !res.Skip.TriggerNotMet() || res.Summary != nil {
		t.Fatalf("%+v, %v", res, err)
	}
	if recs := readAll(t, out.String()); len(recs) != 5 {
		t.Fatalf("want the 5 records unchanged:\n%s", out.String())
	}
}

func TestTransformDeleteOriginals(t *testing.T) {
	r := newRunner(t, &fake{})
	r.DeleteOriginals = true
	var out strings.Builder
	if _, err := Transform(context.Background(), r, strings.NewReader(messages(9)), &out); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, out.String())
	if len(recs) != 4 || recs[0].Message.Role != transcript.RoleSummary {
		t.Fatalf("want the summary and the kept turns:\n%s", out.String())
	}
}

func TestTransformBadInput(t *testing.T) {
	_, err := Transform(context.Background(), newRunner(t, &fake{}), strings.NewReader(messages(2)+"{not json\n"), &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("err = %v, want one naming line 3", err)
	}
}
