package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/transcript"
)

// mustSurvive are facts of every shape a conversation carries: each must
// come out of two rounds of progressive summarizing, under the default
// policy, exactly as it was said.
var mustSurvive = []struct{ name, fact string }{
	{"order id", "ORD-55821"},
	{"tracking code", "DHL-7781-XZ"},
	{"flight", "AF-20418"},
	{"api key", "sk-test-123"},
	{"e-mail", "anna.berg+travel@example.co.uk"},
	{"url with path and query", "https://shop.example.com/orders/55821?tab=tracking&lang=en"},
	{"iban", "DE89 3704 0044 0532 0130 00"},
	{"phone", "+49 30 1234 5678"},
	{"amount with unit", "129.90 EUR"},
	{"amount with symbol", "$1,250.00"},
	{"iso date", "2026-05-12"},
	{"long date", "9 May 2026"},
	{"time", "08:40"},
	{"version", "v1.22.3"},
	{"absolute path", "/etc/convo/config.yaml"},
	{"relative path", "pkg/summarize/facts.go"},
}

// chitChat is filler a long conversation is made of: no identifiers, a
// few names and plain numbers, as people talk.
func chitChat(i int) string {
	lines := []string{
		"How was the weekend? Mine was quiet, mostly reading in the garden.",
		"Pretty good, we went hiking with Jonas near the lake and it rained twice.",
		"That sounds lovely. I still need to finish the report for my manager before Friday.",
		"Good luck with it! Tell me if you want me to look over the draft.",
		"Thanks, I will. Did you ever try that bakery on the corner? Their bread is great.",
		"Not yet, but my sister Clara keeps talking about it, so maybe this week.",
		"We should plan the dinner for the 3 of us sometime soon.",
		"Sure, I'll ask around and come back with a few ideas for places.",
	}
	return lines[i%len(lines)]
}

// summarizeTwice runs two rounds of progressive summarizing on recs
// under opt: the first over recs, the second after more turns. It
// returns the second summary record.
func summarizeTwice(t *testing.T, recs []transcript.Record, more int, text func(i int) string, opt Options) transcript.Record {
	t.Helper()
	ex := &extractive.Summarizer{Counter: opt.Counter}
	round := func(recs []transcript.Record, id string) ([]transcript.Record, transcript.Record) {
		t.Helper()
		p, skip, err := Prepare(recs, opt)
		if err != nil || p == nil {
			t.Fatalf("plan: skip %q err %v", skip, err)
		}
		out, err := ex.Summarize(context.Background(), p.Input)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := p.Record(out, ex.Name(), id, 5000, opt)
		if err != nil {
			t.Fatal(err)
		}
		return transcript.PlaceSummary(recs, sum, p.Span, false), sum
	}
	recs, _ = round(recs, "01JRZJ1675E4S7Y4ZD7RNWNXWB")
	tail := recs[transcript.LatestSummary(recs):]
	app := transcript.NewAppender("c", &tail[len(tail)-1], transcript.NewIDs(), func() int64 { return 6000 })
	for i := range more {
		role := []transcript.Role{"user", "assistant"}[i%2]
		for _, ch := range app.Append(transcript.Record{Message: transcript.Message{Role: role, Contents: []string{text(i)}}}) {
			tail = append(tail, ch.Record.Clone())
		}
	}
	_, sum := round(tail, "01JRZJ1678TK4476R5VW3J899K")
	return sum
}

// defaultOptions is the policy summarize runs with no flags but
// --keep-last 4.
func defaultOptions(t testing.TB) Options {
	return Options{KeepLast: 4, KeepLastTokens: DefaultKeepLastTokens, MaxSummaryTokens: DefaultMaxSummaryTokens,
		SummaryRatio: DefaultSummaryRatio, LedgerSize: DefaultLedgerSize, Counter: counter(t)}
}

// TestFactsSurviveVerbatim: every fact shape, said once by the user at the
// start of a message or in mid-sentence, in a short chat and a long one,
// is in the second progressive summary word for word, and the ledger
// carries it whole.
func TestFactsSurviveVerbatim(t *testing.T) {
	placements := map[string]string{
		"start":    "%s is what I need you to keep track of, please.",
		"repeated": "%s, as you said earlier, is what I need you to keep track of, please.",
		"mid":      "Could you note that the reference is %s for later, thanks.",
	}
	lengths := map[string]int{"short": 14, "long": 160}
	for _, f := range mustSurvive {
		for _, place := range []string{"start", "mid", "repeated"} {
			for _, length := range []string{"short", "long"} {
				t.Run(f.name+"/"+place+"/"+length, func(t *testing.T) {
					said := fmt.Sprintf(placements[place], f.fact)
					recs := conversation(lengths[length], func(i int) string {
						switch {
						case i == 2:
							return said
						case i == 3:
							return "Noted, I will keep it in mind."
						case i == 1 && place == "repeated": // the other side said it first
							return "The one on file is " + f.fact + "."
						}
						return chitChat(i)
					})
					sum := summarizeTwice(t, recs, lengths[length], func(i int) string { return chitChat(i + 3) }, defaultOptions(t))
					text := sum.Message.Contents[0]
					if !strings.Contains(text, f.fact) {
						t.Errorf("the summary lost %q:\n%s", f.fact, text)
					}
					var ledger []facts.Fact
					if err := json.Unmarshal(sum.Metadata.Aux["ledger"], &ledger); err != nil {
						t.Fatal(err)
					}
					if !slices.ContainsFunc(ledger, func(l facts.Fact) bool { return l.Text == f.fact }) {
						t.Errorf("the ledger does not carry %q whole: %v", f.fact, ledger)
					}
					for _, l := range ledger {
						if strings.Contains(f.fact, l.Text) && l.Text != f.fact {
							t.Errorf("the ledger holds a piece %q of %q", l.Text, f.fact)
						}
					}
				})
			}
		}
	}
}

// TestNotFacts: what is no fact stays out of the ledger.
func TestNotFacts(t *testing.T) {
	tests := []struct {
		name, text string
		role       transcript.Role
		not        []string
	}{
		{"json keys of a tool result", `{"name": "Widget Pro", "price": 12.5, "sku": "WID-0042", "in_stock": true}`, transcript.RoleTool,
			[]string{"name", "price", "sku", "in_stock", `name": "`}},
		{"quoted blank", `He only said "   " and left. Then "" again.`, transcript.RoleUser, []string{"", "   "}},
		{"fillers", "Perfect! Keep it up! 100 % agree. Wow!", transcript.RoleUser, []string{"Perfect", "Keep it up!", "100 % agree", "Wow"}},
		{"forms of address", "Thanks, Mell! See you soon, Caro. Hey Caro, so Brave of you!", transcript.RoleAssistant, []string{"Mell", "Caro", "Brave"}},
		{"markdown emphasis", "**Perfect**, that works. _Great_ news.", transcript.RoleAssistant, []string{"Perfect", "Great"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := transcript.Record{Message: transcript.Message{Role: tt.role, Name: "lookup", Contents: []string{tt.text}}}
			if tt.role == transcript.RoleTool {
				r.Message.ToolCallID = "call_1"
			}
			ledger, _ := CarryLedger(nil, []transcript.Record{r}, 0)
			for _, f := range ledger {
				if slices.Contains(tt.not, f.Text) || strings.TrimSpace(f.Text) == "" {
					t.Errorf("%q became a fact: %v", f.Text, ledger)
				}
			}
		})
	}
	// A tool result's values are facts, its keys are not.
	r := transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "c", Contents: []string{`{"sku": "WID-0042", "url": "https://x.example/p/42?ref=a"}`}}}
	ledger, _ := CarryLedger(nil, []transcript.Record{r}, 0)
	for _, want := range []string{"WID-0042", "https://x.example/p/42?ref=a"} {
		if !slices.ContainsFunc(ledger, func(f facts.Fact) bool { return f.Text == want }) {
			t.Errorf("tool result value %q is not a fact: %v", want, ledger)
		}
	}
}

// A user's standing instruction, said once, outranks facts said more
// often when the ledger's bound holds only some: it rules every turn after.
func TestLedgerKeepsInstructionsFirst(t *testing.T) {
	user := func(text string) transcript.Record {
		return transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{text}}}
	}
	covered := []transcript.Record{
		user("Order ORD-55821 and ORD-55822 shipped with DHL-7781-XZ on 2026-05-12."),
		user("Please always book window seats."),
		user("Again: ORD-55821, ORD-55822, DHL-7781-XZ, 2026-05-12."),
	}
	ledger, dropped := CarryLedger(nil, covered, 2)
	if !slices.ContainsFunc(ledger, func(f facts.Fact) bool { return f.Text == "Please always book window seats." }) {
		t.Fatalf("the instruction lost its place to facts seen twice: %v", ledger)
	}
	if len(ledger) != 2 || dropped != 3 {
		t.Fatalf("a bound of 2 kept %d entries and dropped %d, want 2 and 3: %v", len(ledger), dropped, ledger)
	}
}

// Past the bound, what the user said outranks what the assistant said,
// which outranks a tool's output; the summary says how many it dropped,
// and a second summary adds to that count.
func TestLedgerRanksBySpeaker(t *testing.T) {
	rec := func(role transcript.Role, text string) transcript.Record {
		r := transcript.Record{Message: transcript.Message{Role: role, Contents: []string{text}}}
		if role == transcript.RoleTool {
			r.Message.ToolCallID, r.Message.Name = "c1", "bash"
		}
		return r
	}
	covered := []transcript.Record{
		rec(transcript.RoleTool, "built ./out/ORD-1111.bin ./out/ORD-1111.bin ./out/ORD-1111.bin"),
		rec(transcript.RoleAssistant, "Your ticket is TCK-2222."),
		rec(transcript.RoleUser, "My order is ORD-3333."),
	}
	ledger, dropped := CarryLedger(nil, covered, 2)
	var got []string
	for _, f := range ledger {
		got = append(got, f.Text)
	}
	if !slices.Equal(got, []string{"TCK-2222", "ORD-3333"}) || dropped != 1 {
		t.Fatalf("kept %q, dropped %d; want the user's and the assistant's, 1 dropped", got, dropped)
	}
	prev := transcript.Record{Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{"x"}},
		Metadata: transcript.Metadata{Aux: map[string]json.RawMessage{"ledger": mustJSON(t, ledger), "ledgerDropped": mustJSON(t, dropped)}}}
	_, dropped = CarryLedger(&prev, []transcript.Record{rec(transcript.RoleUser, "And PO#4812.")}, 2)
	if dropped != 2 {
		t.Fatalf("dropped %d in all, want 2", dropped)
	}
	if text := facts.Text(ledger, 7); !strings.Contains(text, "(7 less used dropped)") || !strings.Contains(text, "- user: order ORD-3333") {
		t.Fatalf("the ledger's text:\n%s", text)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTwelveIdentifiersShortChat: a short support chat with twelve
// identifiers of different shapes, each said once, summarized twice with
// the default flags, keeps every one verbatim with the words that say what
// it is, and makes no fact of a plain word.
func TestTwelveIdentifiersShortChat(t *testing.T) {
	said := []struct{ label, fact string }{
		{"incident number", "INC-2291-B"},
		{"purchase order", "PO#48812"},
		{"courier reference", "AZ-7781-XQ"},
		{"billing contact", "billing@acme.example"},
		{"status page", "https://status.example.com/incidents/8841?region=eu-west"},
		{"refund IBAN", "DE89 3704 0044 0532 0130 00"},
		{"desktop client version", "v2.14.3-rc1"},
		{"delivery date", "2026-03-14"},
		{"refund amount", "$1,249.99"},
		{"error log", "/var/log/acme/agent.log"},
		{"replacement SKU", "SKU-88120-BLK"},
		{"callback number", "+44 20 7946 0958"},
	}
	var texts []string
	for i, s := range said {
		if i%2 == 0 {
			texts = append(texts, "Details: the "+s.label+" is "+s.fact+". Can you check it?", "Thanks, I am looking into it now.")
		} else {
			texts = append(texts, "Any news on my case?", "Yes: "+s.fact+" is the "+s.label+", noted on the case.")
		}
	}
	recs := conversation(len(texts), func(i int) string { return texts[i] })
	sum := summarizeTwice(t, recs, 12, chitChat, defaultOptions(t))
	text := sum.Message.Contents[0]
	for _, s := range said {
		if !strings.Contains(text, s.fact) {
			t.Errorf("lost %q:\n%s", s.fact, text)
			continue
		}
		if !strings.Contains(text, s.label+" "+s.fact) && !slices.ContainsFunc(strings.Split(text, "\n"), func(line string) bool {
			return strings.Contains(line, s.fact) && strings.Contains(strings.ToLower(line), strings.ToLower(s.label))
		}) {
			t.Errorf("%q kept without its label %q:\n%s", s.fact, s.label, text)
		}
	}
	if strings.Contains(text, "| Details") || strings.Contains(text, ": Details") {
		t.Errorf("a plain word became a fact:\n%s", text)
	}
}

// Past the bound, the newest instructions win over older ones, whole, and
// the drop is counted; the instructions come first in the ledger.
func TestLedgerNewestInstructionsWin(t *testing.T) {
	var covered []transcript.Record
	for i := range 5 {
		covered = append(covered, transcript.Record{Message: transcript.Message{Role: transcript.RoleUser,
			Contents: []string{fmt.Sprintf("Order ORD-%d arrived. Never ship to the old address number %d, even when the customer asks twice, unless the manager signs it off.", 1000+i, i)}}})
	}
	ledger, dropped := CarryLedger(nil, covered, 3)
	var got []string
	for _, f := range ledger {
		got = append(got, f.Text)
	}
	want := []string{
		"Never ship to the old address number 2, even when the customer asks twice, unless the manager signs it off.",
		"Never ship to the old address number 3, even when the customer asks twice, unless the manager signs it off.",
		"Never ship to the old address number 4, even when the customer asks twice, unless the manager signs it off.",
	}
	if !slices.Equal(got, want) || dropped != 7 {
		t.Fatalf("kept %q, dropped %d; want the three newest instructions whole, 7 dropped", got, dropped)
	}
}
