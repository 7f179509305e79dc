package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/schemas"
)

func TestListFlags(t *testing.T) {
	const now, day = 1744815823058, 24 * 3600 * 1000
	tests := []struct {
		args         []string
		from, before int64
		code         int
		text         string
	}{
		{args: []string{}},
		{args: []string{"--since", "1d", "--older-than", "1970-01-01T00:00:01Z"}, from: now - day, before: 1000},
		{args: []string{"--tokenizer", "cl100k_base", "--json"}},
		{args: []string{"--tokenizer", "gpt2"}, code: exitcode.Usage, text: "--tokenizer"},
		{args: []string{"--since", "soon"}, code: exitcode.Usage, text: `--since "soon"`},
		{args: []string{"--older-than", "-1d"}, code: exitcode.Usage, text: `--older-than "-1d"`},
		{args: []string{"extra"}, code: exitcode.Usage, text: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *listOptions
			execFlags(t, newCmdList(f, func(_ context.Context, o *listOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code != 0 {
				if got != nil {
					t.Fatal("runF ran after a usage error")
				}
				return
			}
			if got == nil || got.key == "" || got.from != tt.from || got.before != tt.before {
				t.Fatalf("options %+v, want from %d before %d", got, tt.from, tt.before)
			}
		})
	}
}

// list counts the tokens of the LLM view: the latest summary and what
// follows it, less the system prompt.
func TestListRun(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	if err := runCmd(t, f, "append", "-q", "-c", "other", "hello world"); err != nil {
		t.Fatal(err)
	}
	out := f.IO.Out.(*bytes.Buffer)
	out.Reset()
	counter, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	view := counter.Count("Paris is sunny.") + counter.Count("And Lisbon?") + counter.Count("Rainy.")
	ctx := context.Background()

	if err := listRun(ctx, &listOptions{f: f, json: true, key: counter.Name(), counter: counter}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("list --json:\n%s", out)
	}
	// The most recently active first: "other" was appended now, "demo"'s
	// newest record was made at 6 ms, whenever it was written (its last
	// activity is that, not the write: updated).
	var e show.ListEntry
	if err := json.Unmarshal([]byte(lines[1]), &e); err != nil {
		t.Fatal(err)
	}
	if e.Conversation != "demo" || e.Records != 6 || e.Tokens != view || e.Summaries != 1 || e.LastActivity != 6 || e.Updated != 1744815823058 ||
		e.LatestSummary != "01JRZJ166J2WRMF990535EVSQ4" || e.LatestSummaryCreated != 4 || e.AfterSummary != 2 || e.Exports == nil {
		t.Errorf("entry %+v, want %d tokens, last activity 6", e, view)
	}
	if !strings.Contains(lines[0], `"conversation":"other","records":1,"tokens":2,`) || !strings.Contains(lines[0], `"lastActivity":1744815823058,`) || !strings.Contains(lines[0], `"exports":[]`) {
		t.Errorf("first entry %s", lines[0])
	}

	// A sink exported to is listed with what it would send now.
	if err := runCmd(t, f, "export", "-c", "demo", "--incremental", "--exclude-last", "--sink", "s3"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := listRun(ctx, &listOptions{f: f, json: true, key: counter.Name(), counter: counter}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"exports":[{"sink":"s3","seq":6,"pending":1,"held":true,"updated":1744815823058}]`) {
		t.Errorf("exports:\n%s", out)
	}

	// The table, most recently active first, and the filters on the last
	// activity: "other"'s is the test clock's time, "demo"'s 6 ms; a cutoff
	// after both keeps none, one between them "demo" alone.
	out.Reset()
	if err := listRun(ctx, &listOptions{f: f, key: counter.Name(), counter: counter}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "CONVERSATION  RECORDS  TOKENS  LAST ACTIVITY\nother         1        2       2025-04-16T15:03:43Z\ndemo          6        ") ||
		!strings.Contains(out.String(), "1970-01-01T00:00:00Z") {
		t.Errorf("table:\n%s", out)
	}
	out.Reset()
	if err := listRun(ctx, &listOptions{f: f, key: counter.Name(), counter: counter, from: 1744815823059}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "CONVERSATION  RECORDS  TOKENS  LAST ACTIVITY\n" {
		t.Errorf("--since after the last activity:\n%s", out)
	}
	out.Reset()
	if err := listRun(ctx, &listOptions{f: f, json: true, key: counter.Name(), counter: counter, before: 1744815823058}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), `"conversation":"demo"`) {
		t.Errorf("--older-than the last activity:\n%s", out)
	}
}

// list --json is a contract (docs/json-output.md): every line the real
// command prints, with and without summaries and export cursors, holds to
// schemas/list.schema.json, which lists every field.
func TestListJSONMatchesSchema(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	for _, args := range [][]string{
		{"append", "-q", "-c", "other", "hello world"},
		{"export", "-c", "demo", "--incremental", "--exclude-last", "--sink", "s3"},
	} {
		if err := runCmd(t, f, args...); err != nil {
			t.Fatal(err)
		}
	}
	out := f.IO.Out.(*bytes.Buffer)
	out.Reset()
	if err := runCmd(t, f, "list", "--json"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"latestSummary"`) || !strings.Contains(lines[1], `"sink":"s3"`) {
		t.Fatalf("list --json does not cover summaries and sinks:\n%s", out)
	}
	for _, line := range lines {
		if err := schemas.ValidateListEntry([]byte(line)); err != nil {
			t.Errorf("%v\n%s", err, line)
		}
	}
}

// An id holding what a terminal obeys (an escape sequence, a carriage
// return, a bidi override, a newline) is printed escaped by list and by
// show's heading, never raw.
func TestListAndShowEscapeIDs(t *testing.T) {
	id := "evil\x1b[2J\r\u202eid\nx"
	f := appendTo(t, id, chat...)
	out := f.IO.Out.(*bytes.Buffer)
	for _, args := range [][]string{{"list"}, {"show", "-c", id}, {"show", "-c", id, "--plain"}} {
		out.Reset()
		if err := runCmd(t, f, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		got := out.String()
		if strings.ContainsAny(got, "\x1b\r\u202e") || strings.Contains(got, "id\nx") {
			t.Errorf("%v printed the id raw:\n%q", args, got)
		}
		if !strings.Contains(got, `evil\x1b[2J\x0d\u202eid\x0ax`) {
			t.Errorf("%v: no escaped id in\n%q", args, got)
		}
	}
}
