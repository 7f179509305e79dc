package storetest

// Tests of edit.go: annotate, fork, rewind, prune and status.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Names here start with lc so they do not clash with other tests of the
// package.

func lcMust(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func lcAppend(t testing.TB, s store.Store, ids *transcript.IDs, conv string, recs ...transcript.Record) {
	t.Helper()
	_, err := s.Append(context.Background(), conv, ids, transcript.Slice(recs...))
	lcMust(t, err)
}

// lcSummarize stores a summary of what SummarySpan allows, keeping keepLast
// turns, and reports whether there was anything to cover.
func lcSummarize(t testing.TB, s store.Store, ids *transcript.IDs, conv string, keepLast int, deleteCovered bool) bool {
	t.Helper()
	recs := readAll(t, s, conv, store.ReadOptions{})
	span := transcript.SummarySpan(recs, keepLast)
	if span.Empty() {
		return false
	}
	now := time.Now().UnixMilli()
	sum := transcript.Record{ID: ids.New(now), Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{fmt.Sprintf("summary of %d", len(span.Covered))}},
		Metadata: transcript.Metadata{SummaryIDs: transcript.CoveredIDs(recs, span), Timing: transcript.Timing{Creation: now}}}
	lcMust(t, insertSummary(s, context.Background(), conv, recs[span.Anchor].ID, &sum, deleteCovered))
	return true
}

// lcCheckRules checks rules 1 and 2 on a stored transcript: no two user or
// two assistant records in a row (system records take no part), and the
// first record the LLM sees after the latest summary is a user record.
func lcCheckRules(t testing.TB, what string, recs []transcript.Record) {
	t.Helper()
	var prev transcript.Role
	for i, r := range recs {
		switch r.Message.Role {
		case transcript.RoleSystem:
			continue
		case transcript.RoleSummary:
			prev = ""
			continue
		case transcript.RoleUser, transcript.RoleAssistant:
			if r.Message.Role == prev {
				t.Fatalf("%s: records %d: two %s records in a row\n%s", what, i, prev, contents(recs))
			}
		}
		prev = r.Message.Role
	}
	if i := transcript.FirstSent(recs); i >= 0 && recs[i].Message.Role != transcript.RoleUser {
		t.Fatalf("%s: the first record sent is %s\n%s", what, recs[i].Message.Role, contents(recs))
	}
}

// lcRandomTranscript fills conv with n random appends (users, assistants
// with and without tool calls, tool results, system prompts, explicit ids)
// and now and then a summary, some deleting what they cover.
func lcRandomTranscript(t testing.TB, s store.Store, ids *transcript.IDs, conv string, rng *rand.Rand, n int) {
	t.Helper()
	pendingCalls := []string{}
	for i := range n {
		var r transcript.Record
		switch k := rng.IntN(10); {
		case k < 4:
			r = msg("user", fmt.Sprintf("u%d", i))
		case k < 7:
			r = msg("assistant", fmt.Sprintf("a%d", i))
			if rng.IntN(3) == 0 {
				id := fmt.Sprintf("call_%d", i)
				r.Message.ToolCalls = []transcript.ToolCall{{ID: id, Name: "f", Arguments: `{"x": 1}`}}
				pendingCalls = append(pendingCalls, id)
			}
		case k < 9 && len(pendingCalls) > 0:
			r = msg("tool", fmt.Sprintf("t%d", i))
			r.Message.ToolCallID = pendingCalls[0]
			pendingCalls = pendingCalls[1:]
		default:
			r = msg("system", fmt.Sprintf("s%d", i))
		}
		if rng.IntN(5) == 0 {
			r.ID = ids.New(time.Now().UnixMilli())
			r.Metadata.Aux = map[string]json.RawMessage{"n": json.RawMessage(fmt.Sprint(i))}
		}
		lcAppend(t, s, ids, conv, r)
		if rng.IntN(8) == 0 {
			lcSummarize(t, s, ids, conv, rng.IntN(3), rng.IntN(4) == 0)
		}
	}
}

func (x suite) TestLifecycleAnnotate(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	lcAppend(t, s, ids, "c", msg("assistant", "Hello!"), msg("user", "hi"), msg("assistant", "answer"))
	// An incremental export sees everything once.
	_, m := exportRun(t, s, "c", store.ExportOptions{Sink: "x"})
	lcMust(t, s.Commit(ctx, m))

	an := &transcript.Annotation{Timing: map[string]int64{"playStart": 10, "playEnd": 20}, Aux: map[string]json.RawMessage{"rating": json.RawMessage("5")}}
	body, err := s.Annotate(ctx, "c", store.RefLastAssistant, an)
	lcMust(t, err)
	if !strings.Contains(string(body), `"timing":{"creation":`) || !strings.Contains(string(body), `"playStart":10,"playEnd":20},"aux":{"rating":5}`) {
		t.Fatalf("annotated: %s", body)
	}
	rows, _ := exportRun(t, s, "c", store.ExportOptions{Sink: "x"})
	if len(rows) != 1 || string(rows[0].Body) != string(body) {
		t.Fatalf("the incremental export after annotate sent %d rows", len(rows))
	}

	// last-user skips nothing here; last is the assistant; the fake is never last-user.
	lcAppend(t, s, ids, "d", msg("assistant", "first"))
	if _, err := s.Annotate(ctx, "d", store.RefLastUser, an); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("last-user with only a placeholder: %v", err)
	}

	// Unset, then an unknown key: input error, nothing changed.
	body, err = s.Annotate(ctx, "c", store.RefLast, &transcript.Annotation{UnsetAux: []string{"rating"}})
	lcMust(t, err)
	if strings.Contains(string(body), "aux") {
		t.Fatalf("aux left after unset: %s", body)
	}
	before := readAll(t, s, "c", store.ReadOptions{})
	var ie *transcript.InputError
	if _, err := s.Annotate(ctx, "c", store.RefLast, &transcript.Annotation{Timing: map[string]int64{"playstart": 1}}); !errors.As(err, &ie) {
		t.Fatalf("unknown timing key: %v", err)
	}
	if !slices.EqualFunc(readAll(t, s, "c", store.ReadOptions{}), before, lcSame) {
		t.Fatal("a failed annotate changed the store")
	}
	for _, tc := range []struct{ conv, ref string }{{"nope", store.RefLast}, {"c", "01JRZJ166J2WRMF990535EVSQS"}} {
		if _, err := s.Annotate(ctx, tc.conv, tc.ref, an); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("annotate %s %s: %v", tc.conv, tc.ref, err)
		}
	}

	// An id merged away names the record it was merged into.
	u := msg("user", "more")
	u.ID = ids.New(time.Now().UnixMilli())
	lcAppend(t, s, ids, "c", msg("user", "q"), u)
	body, err = s.Annotate(ctx, "c", u.ID, &transcript.Annotation{Aux: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}})
	lcMust(t, err)
	if !strings.Contains(string(body), `"contents":["q","more"]`) {
		t.Fatalf("absorbed id: %s", body)
	}
	lcMust(t, s.IntegrityCheck(ctx))
}

func (x suite) TestLifecycleRewind(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	var in []transcript.Record
	for i := range 8 {
		in = append(in, msg([]transcript.Role{"user", "assistant"}[i%2], fmt.Sprint(i)))
	}
	lcAppend(t, s, ids, "c", in...)
	if !lcSummarize(t, s, ids, "c", 1, false) {
		t.Fatal("nothing to summarize")
	}
	all := readAll(t, s, "c", store.ReadOptions{})
	if got := contents(all); got != "user:0 assistant:1 user:2 assistant:3 user:4 assistant:5 summary:summary of 6 user:6 assistant:7" {
		t.Fatalf("setup: %s", got)
	}

	// A dry run prints what would go and changes nothing.
	var printed []string
	collect := func(r store.Row) error {
		printed = append(printed, exportID(r.Body))
		return nil
	}
	res, err := s.Rewind(ctx, "c", all[3].ID, store.RewindOptions{DryRun: true, Removed: collect})
	lcMust(t, err)
	if res.Records != 5 || res.Summaries != 1 || len(printed) != 5 {
		t.Fatalf("dry run: %+v %v", res, printed)
	}
	if !slices.EqualFunc(readAll(t, s, "c", store.ReadOptions{}), all, lcSame) {
		t.Fatal("dry run changed the store")
	}

	// Rewinding past the summary removes it too; the rest is the prefix.
	printed = nil
	res, err = s.Rewind(ctx, "c", all[3].ID, store.RewindOptions{Removed: collect})
	lcMust(t, err)
	want := []string{all[4].ID, all[5].ID, all[6].ID, all[7].ID, all[8].ID}
	if !slices.Equal(printed, want) || res.Summaries != 1 {
		t.Fatalf("removed %v, want %v", printed, want)
	}
	after := readAll(t, s, "c", store.ReadOptions{})
	if !slices.EqualFunc(after, all[:4], lcSame) {
		t.Fatalf("after rewind: %s", contents(after))
	}
	lcCheckRules(t, "rewound", after)
	lcMust(t, s.IntegrityCheck(ctx))

	// The rules go on from the new end: an assistant merges into the last one.
	lcAppend(t, s, ids, "c", msg("assistant", "more"))
	if got := contents(readAll(t, s, "c", store.ReadOptions{})); got != "user:0 assistant:1 user:2 assistant:3+more" {
		t.Fatalf("append after rewind: %s", got)
	}
	// A removed id may be appended again.
	again := all[5]
	again.ID = all[4].ID
	again.Message = transcript.Message{Role: "user", Contents: []string{"4 again"}}
	lcAppend(t, s, ids, "c", again)
	if got := contents(readAll(t, s, "c", store.ReadOptions{})); !strings.HasSuffix(got, "user:4 again") {
		t.Fatalf("re-append of a removed id: %s", got)
	}

	// Rewinding to the last record removes nothing; unknown records are not found.
	res, err = s.Rewind(ctx, "c", store.RefLast, store.RewindOptions{})
	if err != nil || res.Records != 0 {
		t.Fatalf("rewind to last: %+v %v", res, err)
	}
	if _, err := s.Rewind(ctx, "c", "01JRZJ166J2WRMF990535EVSQS", store.RewindOptions{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown record: %v", err)
	}
	if _, err := s.Rewind(ctx, "nope", store.RefLast, store.RewindOptions{}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown conversation: %v", err)
	}
}

// TestLifecycleRewindSummaryCoveringRemoved: a summary standing before the
// cut that covers a removed record (a store written by other means) goes
// too, and so does a later summary covering that one.
func (x suite) TestLifecycleRewindSummaryCoveringRemoved(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	lcAppend(t, s, ids, "c", msg("user", "0"), msg("assistant", "1"), msg("user", "2"), msg("assistant", "3"))
	all := readAll(t, s, "c", store.ReadOptions{})
	s1 := exportInsertSummary(t, s, ids, "c", all[1].ID, []string{all[3].ID}, false)
	s2 := exportInsertSummary(t, s, ids, "c", all[2].ID, []string{s1}, false)
	var gone []string
	_, err := s.Rewind(ctx, "c", all[2].ID, store.RewindOptions{Removed: func(r store.Row) error {
		gone = append(gone, exportID(r.Body))
		return nil
	}})
	lcMust(t, err)
	if want := []string{s1, s2, all[3].ID}; !slices.Equal(gone, want) {
		t.Fatalf("removed %v, want %v", gone, want)
	}
	if got := contents(readAll(t, s, "c", store.ReadOptions{})); got != "user:0 assistant:1 user:2" {
		t.Fatalf("left: %s", got)
	}
}

func (x suite) TestLifecyclePruneAndStatus(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	now := time.UnixMilli(1_800_000_000_000)
	setNow(t, s, func() time.Time { return now })
	long := strings.Repeat("x", 2000)
	for i, conv := range []string{"old-a", "old-b", "new-a"} {
		if i == 2 {
			now = now.Add(48 * time.Hour)
		}
		lcAppend(t, s, ids, conv, msg("system", "prompt"))
		for j := range 40 {
			lcAppend(t, s, ids, conv, msg([]transcript.Role{"user", "assistant"}[j%2], long))
		}
		if !lcSummarize(t, s, ids, conv, 2, false) {
			t.Fatal("nothing to summarize")
		}
	}
	st, err := s.Status(ctx, "old-b")
	lcMust(t, err)
	if st.Summaries != 1 || st.LatestSummary == "" || st.AfterSummary != 4 || len(st.Exports) != 0 {
		t.Fatalf("status: %+v", st)
	}
	_, m := exportRun(t, s, "old-b", store.ExportOptions{Sink: "s3", ExcludeLast: true})
	lcMust(t, s.Commit(ctx, m))
	lcAppend(t, s, ids, "old-b", msg("user", "one more"))
	now = now.Add(time.Hour)
	st, _ = s.Status(ctx, "old-b")
	if len(st.Exports) != 1 || st.Exports[0].Sink != "s3" || !st.Exports[0].Held || st.Exports[0].Pending != 2 {
		t.Fatalf("export status: %+v", st.Exports)
	}

	// Dry run, glob, age.
	cut := now.Add(-24 * time.Hour).UnixMilli()
	res, err := s.Prune(ctx, store.PruneOptions{Before: cut, DryRun: true})
	lcMust(t, err)
	if res.Deleted != 1 || res.Conversations[0].Conversation != "old-a" || res.Records != 42 {
		t.Fatalf("dry run: %+v", res)
	}
	if _, err := s.Status(ctx, "old-a"); err != nil {
		t.Fatalf("dry run deleted: %v", err)
	}
	res, err = s.Prune(ctx, store.PruneOptions{Glob: "*-a", KeepSummaries: true})
	lcMust(t, err)
	// Compaction is the backend's choice (SQLite's VACUUM; the sqlite
	// package tests that it runs here); when it runs it frees something.
	if res.Trimmed != 2 || res.Deleted != 0 || res.Records != 2*36 || res.Vacuumed != (res.FreedBytes > 0) {
		t.Fatalf("trim: %+v", res)
	}
	got := readAll(t, s, "new-a", store.ReadOptions{})
	if c := contents(got); !strings.HasPrefix(c, "system:prompt summary:") || len(got) != 6 {
		t.Fatalf("trimmed: %d records: %.80s", len(got), c)
	}
	lcCheckRules(t, "trimmed", got)
	res, err = s.Prune(ctx, store.PruneOptions{Before: cut})
	lcMust(t, err)
	if res.Deleted != 1 || res.Conversations[0].Conversation != "old-a" || res.Records != 6 {
		t.Fatalf("prune: %+v", res)
	}
	if _, err := s.Status(ctx, "old-a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("old-a still there: %v", err)
	}
	lcMust(t, s.IntegrityCheck(ctx))
}
