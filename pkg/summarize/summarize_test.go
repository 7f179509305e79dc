package summarize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

func counter(t testing.TB) *tokens.Counter {
	t.Helper()
	c, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// conversation builds n alternating user/assistant records with ids and
// creation times, through the real appender.
func conversation(n int, text func(i int) string) []transcript.Record {
	app := transcript.NewAppender("c", nil, transcript.NewIDs(), func() int64 { return 1000 })
	var out []transcript.Record
	for i := range n {
		role := []transcript.Role{"user", "assistant"}[i%2]
		for _, ch := range app.Append(transcript.Record{Message: transcript.Message{Role: role, Contents: []string{text(i)}}}) {
			out = append(out, ch.Record.Clone())
		}
	}
	return out
}

func TestPrepareTriggers(t *testing.T) {
	recs := conversation(12, func(i int) string { return fmt.Sprintf("message number %d about the Paris trip", i) })
	tests := []struct {
		name string
		opt  Options
		skip Skip
	}{
		{"no trigger: always", Options{KeepLast: 2}, ""},
		{"under if-over", Options{KeepLast: 2, IfOver: 10000}, SkipTrigger},
		{"over if-over", Options{KeepLast: 2, IfOver: 10}, ""},
		{"every not reached", Options{KeepLast: 2, Every: 13}, SkipTrigger},
		{"every reached", Options{KeepLast: 2, Every: 12}, ""},
		{"keep-last covers all", Options{KeepLast: 6}, "nothing to cover: the conversation has 6 turns since the latest summary, within --keep-last 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.Counter = counter(t)
			p, skip, err := Prepare(recs, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(skip), string(tt.skip)) || (p == nil) != (tt.skip != "") {
				t.Fatalf("skip %q plan %v, want skip %q", skip, p != nil, tt.skip)
			}
		})
	}
}

// TestSkipFigures: a skip names the trigger not met with its figures:
// the view's tokens against --if-over, the records against --every, the
// turns against --keep-last.
func TestSkipFigures(t *testing.T) {
	recs := conversation(2, func(i int) string { return "Hello there" })
	for _, tt := range []struct {
		opt  Options
		want string
	}{
		{Options{KeepLast: 2, IfOver: 10000}, `^trigger not met: the LLM view holds \d+ tokens, not over --if-over 10000$`},
		{Options{KeepLast: 2, Every: 13}, `^trigger not met: 2 records since the latest summary, fewer than --every 13$`},
		{Options{KeepLast: 4}, `^nothing to cover: the conversation has 1 turn since the latest summary, within --keep-last 4$`},
	} {
		tt.opt.Counter = counter(t)
		_, skip, err := Prepare(recs, tt.opt)
		if err != nil || !regexp.MustCompile(tt.want).MatchString(string(skip)) {
			t.Errorf("%+v: skip %q, %v; want %s", tt.opt, skip, err, tt.want)
		}
	}
}

// TestSmallSpanNeverGrows: a summary is shorter than the span it stands
// in for, however short the span: never longer.
func TestSmallSpanNeverGrows(t *testing.T) {
	c := counter(t)
	for _, n := range []int{4, 6, 8, 12, 20} {
		recs := conversation(n, func(i int) string {
			return []string{"I want to visit Lisbon in May. My budget is 900 EUR.", "Lisbon in May is mild. Flights from Berlin start at 120 EUR."}[i%2]
		})
		if n == 4 {
			recs = conversation(n, func(i int) string { return []string{"Hello!", "Hi."}[i%2] })
		}
		opt := Options{KeepLast: 1, Counter: c, MaxSummaryTokens: DefaultMaxSummaryTokens, SummaryRatio: DefaultSummaryRatio}
		p, skip, err := Prepare(recs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			t.Fatalf("%d records: skip %q", n, skip)
		}
		ex := &extractive.Summarizer{Counter: c}
		out, err := ex.Summarize(context.Background(), p.Input)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := p.Record(out, ex.Name(), "01JRZJ1675E4S7Y4ZD7RNWNXWB", 5000, opt)
		if err != nil {
			t.Fatal(err)
		}
		var before, after int
		json.Unmarshal(sum.Metadata.Aux["tokensBefore"], &before)
		json.Unmarshal(sum.Metadata.Aux["tokensAfter"], &after)
		if after >= before {
			t.Errorf("%d records: tokens after %d, before %d:\n%s", n, after, before, sum.Message.Contents[0])
		}
	}
}

func TestPlanRecordAndProgressiveLedger(t *testing.T) {
	c := counter(t)
	recs := conversation(40, func(i int) string {
		if i < 10 {
			return fmt.Sprintf("Turn %d: order #45%d ships to Matt Patterson, see https://example.com/o/%d.", i, i, i)
		}
		return fmt.Sprintf("Turn %d goes on at some length about the shipping, the weather and what was said before, and then some more words.", i)
	})
	opt := Options{KeepLast: 2, Counter: c, MaxSummaryTokens: 600}
	p, _, err := Prepare(recs, opt)
	if err != nil || p == nil {
		t.Fatalf("plan %v err %v", p, err)
	}
	if got, want := p.CoveredIDs(), transcript.CoveredIDs(recs, transcript.Span{Covered: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35}}); !slices.Equal(got, want) {
		t.Fatalf("covered %v, want %v", got, want)
	}
	if !strings.Contains(p.Input.Text, "[user] Turn 0:") || !strings.Contains(p.Input.Compose(), DefaultPrompt) {
		t.Fatalf("input text:\n%s", p.Input.Compose())
	}
	ex := &extractive.Summarizer{Counter: c}
	out, err := ex.Summarize(context.Background(), p.Input)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := p.Record(out, ex.Name(), "01JRZJ1675E4S7Y4ZD7RNWNXWB", 5000, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := transcript.Validate(&sum); err != nil {
		t.Fatal(err)
	}
	text := sum.Message.Contents[0]
	for _, want := range []string{"#450", "Matt Patterson", "https://example.com/o/0"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	for _, key := range []string{"summarizer", "promptVersion", "tokensBefore", "tokensAfter", "coveredFrom", "coveredTo", "ledger"} {
		if _, ok := sum.Metadata.Aux[key]; !ok {
			t.Errorf("aux lacks %s: %v", key, sum.Metadata.Aux)
		}
	}
	var before, after int
	json.Unmarshal(sum.Metadata.Aux["tokensBefore"], &before)
	json.Unmarshal(sum.Metadata.Aux["tokensAfter"], &after)
	if after >= before {
		t.Errorf("tokens after %d not below before %d", after, before)
	}

	// Place it, add turns, summarize again: the new summary covers the old
	// one first and still carries its facts.
	recs = transcript.PlaceSummary(recs, sum, p.Span, false)
	tail := recs[transcript.LatestSummary(recs):]
	app := transcript.NewAppender("c", &tail[len(tail)-1], transcript.NewIDs(), func() int64 { return 6000 })
	for i := range 6 {
		role := []transcript.Role{"user", "assistant"}[i%2]
		for _, ch := range app.Append(transcript.Record{Message: transcript.Message{Role: role, Contents: []string{fmt.Sprintf("later talk %d", i)}}}) {
			tail = append(tail, ch.Record.Clone())
		}
	}
	p2, _, err := Prepare(tail, opt)
	if err != nil || p2 == nil {
		t.Fatalf("second plan %v err %v", p2, err)
	}
	if p2.Previous == nil || p2.CoveredIDs()[0] != sum.ID {
		t.Fatalf("second summary does not cover the first: %v", p2.CoveredIDs())
	}
	if strings.Contains(p2.Input.Previous, facts.Heading) {
		t.Fatalf("previous text handed to the summarizer repeats the ledger")
	}
	out2, _ := ex.Summarize(context.Background(), p2.Input)
	sum2, err := p2.Record(out2, ex.Name(), "01JRZJ1678TK4476R5VW3J899K", 7000, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum2.Message.Contents[0], "Matt Patterson") {
		t.Errorf("second summary lost a carried fact:\n%s", sum2.Message.Contents[0])
	}
	if string(sum2.Metadata.Aux["previousSummary"]) != `"`+sum.ID+`"` {
		t.Errorf("previousSummary = %s", sum2.Metadata.Aux["previousSummary"])
	}
}

func TestRecordRejectsBadAnswers(t *testing.T) {
	recs := conversation(4, func(i int) string {
		return "hello there friend, we talked about the trip to Lisbon and the hotel near the river"
	})
	opt := Options{Counter: counter(t)}
	p, _, err := Prepare(recs, opt)
	if err != nil || p == nil {
		t.Fatal(p, err)
	}
	for _, text := range []string{"", "   \n", "Error: rate limit exceeded", "I'm sorry, but I can't help with that.", "As an AI, I cannot"} {
		if _, err := p.Record(Output{Text: text}, "x", "01JRZJ1675E4S7Y4ZD7RNWNXWB", 1, opt); !errors.Is(err, ErrBadSummary) {
			t.Errorf("%q: err = %v, want ErrBadSummary", text, err)
		}
	}
}

// TestExtractiveDeterministicAndBounded: the same input gives the same bytes,
// and the summary stays within its budget however long the span.
func TestExtractiveDeterministicAndBounded(t *testing.T) {
	c := counter(t)
	recs := conversation(400, func(i int) string {
		return fmt.Sprintf("Sentence %d talks about topic %d and the weather in city %d. Another remark follows here.", i, i%17, i%5)
	})
	for _, budget := range []int{50, 200, 600} {
		opt := Options{Counter: c, MaxSummaryTokens: budget}
		p, _, err := Prepare(recs, opt)
		if err != nil || p == nil {
			t.Fatal(err)
		}
		ex := &extractive.Summarizer{Counter: c}
		a, _ := ex.Summarize(context.Background(), p.Input)
		b, _ := ex.Summarize(context.Background(), p.Input)
		if a.Text != b.Text {
			t.Fatalf("not deterministic")
		}
		sum, err := p.Record(a, ex.Name(), "01JRZJ1675E4S7Y4ZD7RNWNXWB", 1, opt)
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Record(&sum); n > budget+budget/5 {
			t.Errorf("budget %d: summary has %d tokens", budget, n)
		}
	}
}

func TestTemplate(t *testing.T) {
	recs := conversation(6, func(i int) string { return fmt.Sprintf("m%d of the trip to Lisbon and the hotel near the river", i) })
	tmpl, err := ParseTemplate("t", `{{len .Records}} records{{range .Records}} {{.Message.Role}}={{join .Message.Contents ","}}{{end}}`)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := Prepare(recs, Options{Counter: counter(t), KeepLast: 1, Template: tmpl, Prompt: "Summarize."})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Input.Compose(), "Summarize.\n\n4 records user=m0 of the trip to Lisbon and the hotel near the river assistant=m1 of the trip to Lisbon and the hotel near the river user=m2 of the trip to Lisbon and the hotel near the river assistant=m3 of the trip to Lisbon and the hotel near the river"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := ParseTemplate("bad", "{{.Nope"); err == nil {
		t.Fatal("bad template parsed")
	}
}

// BenchmarkExtractive: one progressive summary of 600 records of chat over
// a previous summary, within 2,000 tokens.
func BenchmarkExtractive(b *testing.B) {
	c := counter(b)
	words := strings.Fields("I went to the pottery class with Mel last Friday and we made a bowl for her 7 kids; " +
		"the Boston trip in May cost $300 and my sister Anna loved the violin concert at the old church near the lake")
	text := func(i int) string {
		var s []string
		for j := range 24 {
			s = append(s, words[(i*7+j*3)%len(words)])
		}
		return strings.Join(s, " ") + "."
	}
	recs := conversation(600, text)
	ex := &extractive.Summarizer{Counter: c}
	first, err := ex.Summarize(context.Background(), Input{Records: recs[:300], MaxTokens: 2000})
	if err != nil {
		b.Fatal(err)
	}
	in := Input{Records: recs[300:], Previous: first.Text, MaxTokens: 2000}
	for b.Loop() {
		if _, err := ex.Summarize(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestProvenanceSurvivesDeleteOriginals: with --delete-originals, a second
// summary covers the first (deleted with the originals it stood for); its
// coveredFromId still names the conversation's very first record, and
// coveredToId the last original it covers.
func TestProvenanceSurvivesDeleteOriginals(t *testing.T) {
	s := openStore(t)
	seed(t, s, "p", 10)
	var ids []string
	s.Read(context.Background(), "p", store.ReadOptions{}, func(r store.Row) error {
		var rec struct{ ID string }
		json.Unmarshal(r.Body, &rec)
		ids = append(ids, rec.ID)
		return nil
	})
	r := newRunner(t, &fake{})
	r.DeleteOriginals = true
	first, err := r.Run(context.Background(), s, "p")
	if err != nil || first.Summary == nil {
		t.Fatalf("first summary: %v", err)
	}
	seed(t, s, "p", 6)
	second, err := r.Run(context.Background(), s, "p")
	if err != nil || second.Summary == nil {
		t.Fatalf("second summary: %v", err)
	}
	aux := second.Summary.Metadata.Aux
	var from, to string
	json.Unmarshal(aux["coveredFromId"], &from)
	json.Unmarshal(aux["coveredToId"], &to)
	if from != ids[0] {
		t.Errorf("coveredFromId %q, want the first record %q (deleted by the first summary)", from, ids[0])
	}
	covered := second.Summary.Metadata.SummaryIDs
	if !slices.Contains(covered, first.Summary.ID) || to != covered[len(covered)-1] {
		t.Errorf("summaryIds %v, coveredToId %q: want the first summary covered and the last original named", covered, to)
	}
	if strings.Contains(dump(t, s, "p"), `"id":"`+ids[0]+`"`) {
		t.Error("the first record was not deleted")
	}
}
