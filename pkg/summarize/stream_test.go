package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/summarize/internal/work"
	"github.com/convo-cli/convo/pkg/transcript"
)

// randomTranscript is n records of random chat: names, numbers, ids,
// dates, URLs and phrases said more than once, tool calls with their
// results, the odd system, named or fake record.
func randomTranscript(r *rand.Rand, n int) []transcript.Record {
	words := strings.Fields(`the a of and to in we I you my order trip Lisbon Porto Clara Jonas bakery report
		manager Friday dinner garden hiking lake rained bread sister plan ideas places weekend quiet reading draft
		yes no really great think know been have that this Bank of America "The Great Gatsby" ORD-55821 v1.2.3
		2026-05-14 08:40 129.90 EUR 42% https://example.com/a/b main.go user_id camelCase #123 +49 30 1234 5678
		please always never use keep remember I've it's don't we'll Mr. Smith 7 May 2023 seat 14A`)
	phrase := func() string {
		var b strings.Builder
		for k := range 3 + r.IntN(12) {
			if k > 0 {
				b.WriteString([]string{" ", " ", " ", ", ", ". ", "! ", "? ", "\n", ": ", "; "}[r.IntN(10)])
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	said := []string{}
	text := func() string {
		if len(said) > 0 && r.IntN(4) == 0 {
			return said[r.IntN(len(said))] // said before, maybe by the other side
		}
		t := phrase()
		if r.IntN(3) == 0 {
			t += " " + phrase()
		}
		said = append(said, t)
		return t
	}
	var out []transcript.Record
	calls := 0
	for len(out) < n {
		u := transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{text()}}}
		if r.IntN(8) == 0 {
			u.Message.Name = []string{"Caroline", "Mel", "Dr. Who"}[r.IntN(3)]
		}
		out = append(out, u)
		switch k := r.IntN(10); {
		case k < 2:
			id := fmt.Sprintf("call_%d", calls)
			calls++
			args, _ := json.Marshal(map[string]string{"query": text(), "id": fmt.Sprintf("ORD-%d", r.IntN(1000))})
			out = append(out,
				transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant,
					ToolCalls: []transcript.ToolCall{{ID: id, Name: "lookup", Arguments: string(args)}}}},
				transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Name: "lookup",
					IsError: r.IntN(4) == 0, Contents: []string{text()}}})
		case k < 3:
			out = append(out, transcript.Record{Message: transcript.Message{Role: transcript.RoleSystem, Contents: []string{text()}}})
		}
		a := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{text()}}}
		if r.IntN(12) == 0 {
			a.Metadata.Attribute = []string{transcript.AttrFake}
		}
		out = append(out, a)
	}
	return out
}

// appendAll stores recs in conv.
func appendAll(t *testing.T, s store.Store, conv string, recs []transcript.Record) {
	t.Helper()
	_, err := s.Append(context.Background(), conv, transcript.NewIDs(), transcript.Slice(recs...))
	if err != nil {
		t.Fatal(err)
	}
}

// readStored is conv from its latest summary on, as Run read it before it
// streamed.
func readStored(t *testing.T, s store.Store, conv string) []transcript.Record {
	t.Helper()
	var recs []transcript.Record
	err := s.Read(context.Background(), conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		var rec transcript.Record
		if err := transcript.DecodeStored(row.Body, &rec); err != nil {
			return err
		}
		rec.Conversation = conv
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// setKnobs sets the bounds on what the streaming summarizer holds, and
// puts them back when the test ends.
func setKnobs(t *testing.T, held, batch, texts, records, heldBytes int) {
	old := [5]int{extractive.Limits.Held, extractive.Limits.Batch, maxLedgerTexts, work.Batch, maxHeldBytes}
	extractive.Limits.Held, extractive.Limits.Batch, maxLedgerTexts, work.Batch, maxHeldBytes = held, batch, texts, records, heldBytes
	t.Cleanup(func() {
		extractive.Limits.Held, extractive.Limits.Batch, maxLedgerTexts, work.Batch, maxHeldBytes = old[0], old[1], old[2], old[3], old[4]
	})
}

// TestStreamedSummaryMatchesHeld: over random transcripts and options,
// summarizing a stored conversation by streaming it (Runner.Run, its
// bounds shrunk to a few notes and facts so that every pass, batch and
// re-read runs) gives the summary record, byte for byte, that Prepare,
// the extractive summarizer and Record give over the records held in
// memory; three progressive steps each.
func TestStreamedSummaryMatchesHeld(t *testing.T) {
	cases := 60
	if testing.Short() {
		cases = 20
	}
	c := counter(t)
	for seed := range cases {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 15))
			opt := Options{
				KeepLast: r.IntN(4), LedgerSize: 1 + r.IntN(12), MaxSummaryTokens: 20 + r.IntN(400),
				Counter: c,
			}
			if r.IntN(2) == 0 {
				opt.SummaryRatio = DefaultSummaryRatio
			}
			s := openStore(t)
			ex := &extractive.Summarizer{Counter: c}
			for step := range 3 {
				appendAll(t, s, "p", randomTranscript(r, 5+r.IntN(60)))
				held := readStored(t, s, "p")
				// The greedy weighs batchNotes candidates at once whether
				// they are held or streamed.
				batch := 1 + r.IntN(6)
				setKnobs(t, 1<<30, batch, 1<<30, 256, 1<<30)
				p, skip, err := Prepare(held, opt)
				if err != nil {
					t.Fatal(err)
				}
				var out Output
				if p != nil {
					if out, err = ex.Summarize(context.Background(), p.Input); err != nil {
						t.Fatal(err)
					}
				}
				// Held or streamed from the store, as its size says.
				setKnobs(t, r.IntN(8), batch, r.IntN(4), 1+r.IntN(100), []int{0, 1 << 30}[r.IntN(2)])
				run := &Runner{Options: opt, Summarizer: ex, Now: func() time.Time { return time.UnixMilli(1744815900000) }}
				res, err := run.Run(context.Background(), s, "p")
				got, want := "", ""
				switch {
				case err != nil:
					got = err.Error()
				case res.Summary != nil:
					got = encode(t, *res.Summary) + "\nafter " + anchorOf(t, s, res.Summary.ID)
				}
				if p != nil {
					id := "01JRZJ1675E4S7Y4ZD7RNWNXWB"
					if res.Summary != nil {
						id = res.Summary.ID
					}
					rec, err := p.Record(out, ex.Name(), id, 1744815900000, opt)
					if err == nil {
						want = encode(t, rec) + "\nafter " + p.AnchorID()
					} else {
						want = err.Error()
					}
				}
				if res.Skip != skip {
					t.Fatalf("step %d: streamed skip %q, held %q", step, res.Skip, skip)
				}
				if got != want {
					t.Fatalf("step %d: streamed\n%s\nheld\n%s", step, got, want)
				}
			}
		})
	}
}

func encode(t *testing.T, rec transcript.Record) string {
	t.Helper()
	rec.Conversation = ""
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// anchorOf is the id of the record stored right before id.
func anchorOf(t *testing.T, s store.Store, id string) string {
	t.Helper()
	var prev, anchor string
	err := s.Read(context.Background(), "p", store.ReadOptions{}, func(row store.Row) error {
		var rec transcript.Record
		if err := transcript.DecodeStored(row.Body, &rec); err != nil {
			return err
		}
		if rec.ID == id {
			anchor = prev
		}
		prev = rec.ID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return anchor
}

// countingStore counts the reads of a conversation.
type countingStore struct {
	store.Store
	reads int
}

func (c *countingStore) Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error {
	c.reads++
	return c.Store.Read(ctx, conv, opt, fn)
}

// TestShortSpanReadOnce: the extractive summarizer's span is read from the
// store once when it is short; a long one is streamed in passes.
func TestShortSpanReadOnce(t *testing.T) {
	for _, tt := range []struct {
		heldBytes int
		reads     func(int) bool
	}{
		{1 << 30, func(n int) bool { return n == 1 }},
		{0, func(n int) bool { return n > 1 }},
	} {
		s := &countingStore{Store: openStore(t)}
		appendAll(t, s.Store, "p", randomTranscript(rand.New(rand.NewPCG(1, 2)), 60))
		setKnobs(t, extractive.Limits.Held, extractive.Limits.Batch, maxLedgerTexts, work.Batch, tt.heldBytes)
		run := &Runner{Options: defaultOptions(t), Summarizer: &extractive.Summarizer{Counter: counter(t)}}
		run.Options.KeepLast = 1
		res, err := run.Run(context.Background(), s, "p")
		if err != nil || res.Summary == nil {
			t.Fatalf("held bytes %d: %v, skip %q", tt.heldBytes, err, res.Skip)
		}
		if !tt.reads(s.reads) {
			t.Errorf("held bytes %d: %d reads", tt.heldBytes, s.reads)
		}
	}
}
