package summarize

import (
	"context"
	"fmt"
	"testing"

	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// BenchmarkProgressiveStep: one progressive summarizing step under the
// default policy, as `convo summarize` runs it: 300 new records of chat
// folded with the previous summary (itself of 300 records) through
// Prepare (without the text for an LLM, which the extractive summarizer
// does not read), the extractive summarizer and Record. The goal is at
// most 5 ms, cold.
func BenchmarkProgressiveStep(b *testing.B) {
	opt := defaultOptions(b)
	ex := &extractive.Summarizer{Counter: opt.Counter}
	recs := conversation(304, chitChatWithFacts)
	p, _, err := Prepare(recs, opt)
	if err != nil || p == nil {
		b.Fatal(err)
	}
	out, _ := ex.Summarize(context.Background(), p.Input)
	sum, err := p.Record(out, ex.Name(), "01JRZJ1675E4S7Y4ZD7RNWNXWB", 5000, opt)
	if err != nil {
		b.Fatal(err)
	}
	recs = transcript.PlaceSummary(recs, sum, p.Span, false)
	tail := recs[transcript.LatestSummary(recs):]
	app := transcript.NewAppender("c", &tail[len(tail)-1], transcript.NewIDs(), func() int64 { return 6000 })
	for i := range 300 {
		role := []transcript.Role{"user", "assistant"}[i%2]
		for _, ch := range app.Append(transcript.Record{Message: transcript.Message{Role: role, Contents: []string{chitChatWithFacts(i + 7)}}}) {
			tail = append(tail, ch.Record.Clone())
		}
	}
	step := func(b *testing.B, opt Options) {
		ex := &extractive.Summarizer{Counter: opt.Counter}
		p, _, err := prepare(tail, opt, false)
		if err != nil || p == nil {
			b.Fatal(err)
		}
		out, err := ex.Summarize(context.Background(), p.Input)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Record(out, ex.Name(), "01JRZJ1678TK4476R5VW3J899K", 7000, opt); err != nil {
			b.Fatal(err)
		}
	}
	// warm: one counter for every step, as summarize --all runs them.
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			step(b, opt)
		}
	})
	// cold: a counter of its own for each step, its cache of pieces
	// empty, as one convo summarize process runs it.
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			c, err := tokens.New(tokens.Default)
			if err != nil {
				b.Fatal(err)
			}
			o := opt
			o.Counter = c
			step(b, o)
		}
	})
}

// chitChatWithFacts is chitChat with an identifier, an amount or a date in
// every third message.
func chitChatWithFacts(i int) string {
	facts := []string{"order ORD-%d ships Friday", "it cost 1%d.50 EUR", "we meet on 2026-05-1%d at 08:40"}
	if i%3 == 0 {
		return chitChat(i) + " Also " + fmt.Sprintf(facts[(i/3)%len(facts)], i%10) + "."
	}
	return chitChat(i)
}
