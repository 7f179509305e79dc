package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestExtractiveKeepsFacts: within a tight budget the specific phrases
// survive and the small talk goes, and facts the notes hold are not
// repeated after them.
func TestExtractiveKeepsFacts(t *testing.T) {
	c := counter(t)
	texts := []string{
		"Hey! How are you doing today?",
		"Great, thanks! So nice to hear from you.",
		"I adopted a guinea pig named Oscar last Tuesday.",
		"Wow, that's so cool! I love that.",
		"Thanks! Also I started volunteering at a homeless shelter in Boston.",
		"That's awesome, really great to hear.",
		"Yeah, it is great. Anyway, how was your week?",
		"Pretty good. I finished reading The Great Gatsby and ran a 5K charity race.",
	}
	recs := conversation(len(texts), func(i int) string { return texts[i] })
	ex := &extractive.Summarizer{Counter: c}
	ledger := []facts.Fact{{Text: "Oscar", Seen: 1}, {Text: "order #4512", Seen: 1}}
	out, err := ex.Summarize(context.Background(), Input{Records: recs, MaxTokens: 60, Facts: ledger, FactsTokens: facts.Cost(ledger, 0, c)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"guinea pig named Oscar", "homeless shelter in Boston"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("summary lacks %q:\n%s", want, out.Text)
		}
	}
	for _, bad := range []string{"How are you", "nice to hear", "love that", "awesome"} {
		if strings.Contains(out.Text, bad) {
			t.Errorf("summary keeps small talk %q:\n%s", bad, out.Text)
		}
	}
	if got := facts.Missing(out.Text, ledger); len(got) != 1 || got[0].Text != "order #4512" {
		t.Errorf("missing facts %v, want only order #4512", got)
	}
}

func TestSummaryBudget(t *testing.T) {
	tests := []struct {
		max     int
		ratio   float64
		covered int
		want    int
	}{
		{0, 0, 10000, DefaultMaxSummaryTokens},
		{800, 0, 10000, 800},
		{3000, 0.1, 10000, 1000},
		{3000, 0.1, 100000, 3000},
		{3000, 0.1, 200, MinRatioBudget},
		{50, 0.1, 200, 50}, // the maximum wins over the minimum
	}
	for _, tt := range tests {
		if got := summaryBudget(Options{MaxSummaryTokens: tt.max, SummaryRatio: tt.ratio}, tt.covered); got != tt.want {
			t.Errorf("max %d ratio %g covered %d: budget %d, want %d", tt.max, tt.ratio, tt.covered, got, tt.want)
		}
	}
}

// TestRatioBudgetGrows: with --summary-ratio each progressive summary
// records what it stands for, and its budget follows; the summary stays
// within it, but for the protected ledger.
func TestRatioBudgetGrows(t *testing.T) {
	c := counter(t)
	opt := Options{KeepLast: 1, Counter: c, MaxSummaryTokens: 5000, SummaryRatio: 0.1}
	text := func(i int) string {
		return fmt.Sprintf("Message %d mentions project Zephyr-%d, the Lisbon office, and budget line %d of the plan.", i, i, i*7)
	}
	recs := conversation(40, text)
	var covered []int
	for round := range 3 {
		p, _, err := Prepare(recs, opt)
		if err != nil || p == nil {
			t.Fatalf("round %d: plan %v err %v", round, p, err)
		}
		ex := &extractive.Summarizer{Counter: c}
		out, err := ex.Summarize(context.Background(), p.Input)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := p.Record(out, ex.Name(), transcript.NewIDs().New(int64(round+1)), int64(round), opt)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := json.Unmarshal(sum.Metadata.Aux["coveredTokens"], &n); err != nil {
			t.Fatal(err)
		}
		covered = append(covered, n)
		// The ledger is protected: the notes get what it leaves of the
		// budget, or a share of it at least.
		bound := max(p.Budget, facts.Cost(p.Ledger, p.LedgerDropped, c)+p.Budget/notesShare)
		if got := c.Count(sum.Message.Contents[0]); got > bound || p.Budget != summaryBudget(opt, n) {
			t.Errorf("round %d: summary %d tokens, bound %d (budget %d) for %d covered", round, got, bound, p.Budget, n)
		}
		recs = transcript.PlaceSummary(recs, sum, p.Span, false)
		recs = recs[transcript.LatestSummary(recs):]
		app := transcript.NewAppender("c", &recs[len(recs)-1], transcript.NewIDs(), func() int64 { return 1 })
		for i := range 40 {
			role := []transcript.Role{"user", "assistant"}[i%2]
			for _, ch := range app.Append(transcript.Record{Message: transcript.Message{Role: role, Contents: []string{text(100*(round+1) + i)}}}) {
				recs = append(recs, ch.Record.Clone())
			}
		}
	}
	if !(covered[0] < covered[1] && covered[1] < covered[2]) {
		t.Fatalf("covered tokens do not grow: %v", covered)
	}
}

// TestUserSideKept: a reply is never kept without what the user said in
// its turn, even a small "yes, do it", and a named speaker is named.
func TestUserSideKept(t *testing.T) {
	c := counter(t)
	texts := []string{
		"Yes, go ahead.",
		"Opened ticket ORD-55821 with the courier DHL, escalated to the Hamburg depot supervisor.",
		"ok",
		"Refund of 129.90 EUR approved by the billing team in Rotterdam yesterday afternoon.",
		"What about the invoice?",
		"Invoice INV-2026-0412 was sent to anna.berg@example.com on 12 May 2026.",
	}
	recs := conversation(len(texts), func(i int) string { return texts[i] })
	recs[5].Message.Name = "billing-bot"
	ex := &extractive.Summarizer{Counter: c}
	out, err := ex.Summarize(context.Background(), Input{Records: recs, MaxTokens: 110})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.Text, "\n")[1:] {
		if strings.HasPrefix(line, "→") {
			t.Errorf("a reply without the user's side: %q in\n%s", line, out.Text)
		}
	}
	if !strings.Contains(out.Text, "go ahead") || !strings.Contains(out.Text, "→ billing-bot: ") {
		t.Errorf("summary lacks the user's decision or the named speaker:\n%s", out.Text)
	}
}

// TestRepeatsGiveWay: a topic said again and again does not fill the
// budget: once the summary holds its words, the room goes to facts it
// lacks.
func TestRepeatsGiveWay(t *testing.T) {
	c := counter(t)
	texts := []string{
		"We marched at the Stockholm LGBTQ Pride parade with the Rainbow Collective.",
		"The Stockholm LGBTQ Pride parade with the Rainbow Collective sounds huge.",
		"The Rainbow Collective at the Stockholm LGBTQ Pride parade was huge indeed.",
		"Next year the Rainbow Collective plans the Stockholm LGBTQ Pride parade again.",
		"I started violin lessons on Tuesdays.",
		"My guinea pig is named Oscar.",
		"We bought a kayak for the lake.",
		"Sounds like a busy summer.",
	}
	recs := conversation(len(texts), func(i int) string { return texts[i] })
	ex := &extractive.Summarizer{Counter: c}
	// Room for 53 tokens of notes, whatever the heading costs.
	out, err := ex.Summarize(context.Background(), Input{Records: recs, MaxTokens: c.Count("Earlier, a line per exchange (user → assistant):") + 53})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"violin lessons", "guinea pig"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("summary lacks %q:\n%s", want, out.Text)
		}
	}
}
