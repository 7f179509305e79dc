package storetest

// Tests of figures.go: the per-conversation figures list reads (records,
// tokens of the LLM view) kept by the writes that change them.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// figCounter stands in for a tokenizer: a record weighs its content bytes
// plus one, a system record nothing; calls counts the records it was given.
type figCounter struct{ calls int }

func (c *figCounter) count(role string, body []byte) (int, error) {
	c.calls++
	if role == string(transcript.RoleSystem) {
		return 0, nil
	}
	var r transcript.Record
	if err := transcript.DecodeStored(body, &r); err != nil {
		return 0, err
	}
	return figRecord(&r)
}

// figRecord is count of a record in hand (SetFigureRecords).
func figRecord(r *transcript.Record) (int, error) {
	if r.Message.Role == transcript.RoleSystem {
		return 0, nil
	}
	n := 1
	for _, s := range r.Message.Contents {
		n += len(s)
	}
	return n, nil
}

// figWant counts the view from scratch, as list did before the figures.
func figWant(t testing.TB, s store.Store, conv string) int {
	t.Helper()
	var c figCounter
	n := 0
	lcMust(t, s.Read(context.Background(), conv, store.ReadOptions{FromLatestSummary: true}, func(r store.Row) error {
		k, err := c.count(r.Role, r.Body)
		n += k
		return err
	}))
	return n
}

// figCheck compares every figure of conv with a count from scratch.
func figCheck(t testing.TB, s store.Store, conv, after string) {
	t.Helper()
	var c figCounter
	got, err := s.ViewTokens(context.Background(), conv, "fig", c.count)
	lcMust(t, err)
	if want := figWant(t, s, conv); got != want {
		t.Fatalf("after %s: view tokens %d, counted from scratch %d", after, got, want)
	}
	records := int64(len(readAll(t, s, conv, store.ReadOptions{})))
	found := false
	lcMust(t, s.Conversations(context.Background(), func(ci store.ConversationInfo) error {
		if ci.ID == conv {
			found = true
			if ci.Records != records {
				return fmt.Errorf("after %s: %d records listed, %d stored", after, ci.Records, records)
			}
		}
		return nil
	}))
	if !found {
		t.Fatalf("after %s: %s not listed", after, conv)
	}
	figKept(t, s, conv, after)
}

// figureKeeper is a store whose writes keep the token figures of a
// tokenizer in their own transactions (sqlstore.Store.SetFigures).
type figureKeeper interface {
	SetFigures(key string, count func(role string, body []byte) (int, error))
}

// figKeep makes s's writes keep the figures of the tokenizer "kept".
func figKeep(t testing.TB, s store.Store) {
	k, ok := s.(figureKeeper)
	if !ok {
		t.Fatalf("%T keeps no figures", s)
	}
	k.SetFigures("kept", (&figCounter{}).count)
	// Writes count the records they hold, where the store takes a
	// counter of them: what they keep must be what count makes.
	if r, ok := s.(interface {
		SetFigureRecords(func(*transcript.Record) (int, error))
	}); ok {
		r.SetFigureRecords(figRecord)
	}
}

// figKept checks what list reads of conv, under figKeep, with no record
// read: the tokens the writes kept, up to date, and the last activity, the
// newest record's creation time (the conversation's own when it has none).
func figKept(t testing.TB, s store.Store, conv, after string) {
	t.Helper()
	if _, ok := s.(figureKeeper); !ok {
		return
	}
	recs := readAll(t, s, conv, store.ReadOptions{})
	var newest int64 = -1
	for _, r := range recs {
		newest = max(newest, r.Metadata.Timing.Creation)
	}
	found := false
	lcMust(t, s.Figures(context.Background(), "kept", func(c store.ConversationFigures) error {
		if c.ID != conv {
			return nil
		}
		found = true
		if !c.TokensKnown {
			return fmt.Errorf("after %s: %s's figure not kept by the write", after, conv)
		}
		if want := figWant(t, s, conv); int(c.Tokens) != want {
			return fmt.Errorf("after %s: kept tokens %d, counted from scratch %d", after, c.Tokens, want)
		}
		if newest >= 0 && c.LastActivity != newest || newest < 0 && c.LastActivity != c.Created {
			return fmt.Errorf("after %s: last activity %d, newest record made at %d", after, c.LastActivity, newest)
		}
		return nil
	}))
	if !found {
		t.Fatalf("after %s: %s not in Figures", after, conv)
	}
}

// TestFiguresOrder: Figures lists the most recently active first, by the
// newest record's creation time, not by when it was written.
func (x suite) TestFiguresOrder(t *testing.T) {
	s := x.open(t)
	figKeep(t, s)
	ctx := context.Background()
	ids := transcript.NewIDs()
	at := func(role transcript.Role, text string, ms int64) transcript.Record {
		r := msg(role, text)
		r.Metadata.Timing.Creation = ms
		return r
	}
	lcAppend(t, s, ids, "late", at("user", "new", 3000))
	lcAppend(t, s, ids, "early", at("user", "old", 1000), at("assistant", "older still", 500))
	lcAppend(t, s, ids, "middle", at("user", "mid", 2000))
	var got []string
	lcMust(t, s.Figures(ctx, "kept", func(c store.ConversationFigures) error {
		got = append(got, fmt.Sprintf("%s@%d", c.ID, c.LastActivity))
		return nil
	}))
	if want := "late@3000 middle@2000 early@1000"; strings.Join(got, " ") != want {
		t.Fatalf("Figures order %v, want %s", got, want)
	}
	// An import keeps them in its own transaction as an append does.
	cur := store.ImportCursor{Source: "/s.jsonl", Conversation: "imported", Tool: "codex", Size: 10, MTime: 5, Entries: 2, LastEntry: "2", Head: "h"}
	_, err := s.ImportAppend(ctx, cur, ids, transcript.Slice(at("user", "imported question", 2500), at("assistant", "imported answer", 2600)))
	lcMust(t, err)
	figKept(t, s, "imported", "an import")
	// prune --older-than compares the same time.
	res, err := s.Prune(ctx, store.PruneOptions{Before: 1500})
	lcMust(t, err)
	if res.Deleted != 1 || res.Conversations[0].Conversation != "early" {
		t.Fatalf("prune before 1500: %+v, want early alone", res)
	}
}

// TestFiguresIncremental: a figure brought up to date counts only what
// changed: nothing when nothing did, the new record after an append, the
// merged record (less its old version) after a merge.
func (x suite) TestFiguresIncremental(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	for i := range 50 {
		lcAppend(t, s, ids, "c", msg([]transcript.Role{"user", "assistant"}[i%2], strings.Repeat("w", i)))
	}
	var c figCounter
	steps := []struct {
		what  string
		do    func()
		calls int
	}{
		{"the first count", func() {}, 50},
		{"nothing", func() {}, 0},
		{"an append", func() { lcAppend(t, s, ids, "c", msg("user", "new question")) }, 1},
		{"a merge", func() { lcAppend(t, s, ids, "c", msg("user", "and more")) }, 1},
		{"a system record", func() { lcAppend(t, s, ids, "c", msg("system", "be brief")) }, 1},
		{"a merge past the system record", func() { lcAppend(t, s, ids, "c", msg("user", "again")) }, 1},
		{"two appends", func() { lcAppend(t, s, ids, "c", msg("assistant", "a"), msg("user", "b")) }, 2},
	}
	for _, st := range steps {
		st.do()
		c.calls = 0
		got, err := s.ViewTokens(ctx, "c", "fig", c.count)
		lcMust(t, err)
		if want := figWant(t, s, "c"); got != want {
			t.Fatalf("after %s: view tokens %d, counted from scratch %d", st.what, got, want)
		}
		if c.calls != st.calls {
			t.Fatalf("after %s: %d records counted, want %d", st.what, c.calls, st.calls)
		}
	}
	if _, err := s.ViewTokens(ctx, "missing", "fig", c.count); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a missing conversation: %v, want ErrNotFound", err)
	}
}

// TestFiguresProperty: over random transcripts and every kind of write
// (appends and merges, summaries covering or deleting, annotations,
// rewinds, forks, trims, clears and re-creations, copies), the figures
// list reads equal a count from scratch after each write.
func (x suite) TestFiguresProperty(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := x.open(t)
			figKeep(t, s)
			ctx := context.Background()
			ids := transcript.NewIDs()
			rng := rand.New(rand.NewPCG(seed, 13))
			lcRandomTranscript(t, s, ids, "p", rng, 30)
			figCheck(t, s, "p", "a random transcript")
			for step := range 40 {
				var what string
				switch k := rng.IntN(9); k {
				case 0, 1, 2:
					what = "random appends"
					lcRandomTranscript(t, s, ids, "p", rng, 1+rng.IntN(4))
				case 3:
					what = "a summary"
					lcSummarize(t, s, ids, "p", rng.IntN(4), rng.IntN(2) == 0)
				case 4:
					what = "an annotation"
					_, err := s.Annotate(ctx, "p", "last", &transcript.Annotation{Timing: map[string]int64{"llmEnd": int64(step)}})
					lcMust(t, err)
				case 5:
					recs := cutPoints(readAll(t, s, "p", store.ReadOptions{}))
					what = "a rewind"
					if len(recs) == 0 {
						break
					}
					_, err := s.Rewind(ctx, "p", recs[rng.IntN(len(recs))].ID, store.RewindOptions{})
					lcMust(t, err)
				case 6:
					what = "a trim"
					_, err := s.Prune(ctx, store.PruneOptions{Glob: "p", KeepSummaries: true})
					lcMust(t, err)
				case 7:
					what = "a fork"
					opt := store.ForkOptions{Force: true}
					if recs := cutPoints(readAll(t, s, "p", store.ReadOptions{})); len(recs) > 0 && rng.IntN(2) == 0 {
						what, opt.At = "a fork up to a record", recs[rng.IntN(len(recs))].ID
					}
					_, err := s.Fork(ctx, "p", "f", opt, ids)
					lcMust(t, err)
					figCheck(t, s, "f", what)
				case 8:
					what = "a clear and a new conversation of the same name"
					_, err := s.ViewTokens(ctx, "p", "fig", (&figCounter{}).count)
					lcMust(t, err)
					_, err = s.Clear(ctx, "p")
					lcMust(t, err)
					lcRandomTranscript(t, s, ids, "p", rng, 3)
				}
				figCheck(t, s, "p", what)
			}
			copied := x.open(t)
			figKeep(t, copied)
			_, err := store.Copy(ctx, s, copied, "p", false)
			lcMust(t, err)
			figCheck(t, copied, "p", "a copy")
		})
	}
}

// cutPoints is recs less the placeholders, which a fork or rewind refuses
// to cut after (lcRefusesCutAt).
func cutPoints(recs []transcript.Record) []transcript.Record {
	return slices.DeleteFunc(recs, func(r transcript.Record) bool { return r.IsFake() })
}
