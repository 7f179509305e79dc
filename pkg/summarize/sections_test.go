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

// TestSectionsCarried: an agent session summarized twice keeps its first
// request and its error line, which the first summary's sections hold
// and aux.sections carries; the notes read back from the previous
// summary hold no section.
func TestSectionsCarried(t *testing.T) {
	opt := defaultOptions(t)
	opt.KeepLast, opt.KeepLastTokens = 1, 100
	app := transcript.NewAppender("c", nil, transcript.NewIDs(), func() int64 { return 1000 })
	var recs []transcript.Record
	add := func(m transcript.Message) {
		for _, ch := range app.Append(transcript.Record{Message: m}) {
			recs = append(recs, ch.Record.Clone())
		}
	}
	first := "The test TestParseHeader/empty_input fails on branch fix/header-parsing. Do not touch go.mod."
	errLine := `header_test.go:41: got error "unexpected EOF", want nil`
	session := func(round int) {
		for i := range 30 {
			id := fmt.Sprintf("r%dc%d", round, i)
			tc := transcript.ToolCall{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"internal/header/f%d.go"}`, i)}
			body := strings.Repeat(fmt.Sprintf("func parseThing%d(b []byte) error { return nil }\n", i), 20)
			if round == 0 && i == 3 {
				tc = transcript.ToolCall{ID: id, Name: "bash", Arguments: `{"command":"go test ./internal/header/"}`}
				body = strings.Repeat("=== RUN   TestParseHeader\n", 30) + "    " + errLine + "\n--- FAIL: TestParseHeader (0.00s)\nFAIL\n"
			}
			add(transcript.Message{Role: transcript.RoleAssistant, Contents: []string{fmt.Sprintf("Step %d of round %d: reading more code.", i, round)},
				ToolCalls: []transcript.ToolCall{tc}})
			add(transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Name: "tool", Contents: []string{body}})
		}
		add(transcript.Message{Role: transcript.RoleUser, Contents: []string{fmt.Sprintf("Round %d done? Keep going.", round)}})
	}
	add(transcript.Message{Role: transcript.RoleUser, Contents: []string{first}})
	var sum transcript.Record
	for round := range 2 {
		session(round)
		for i := range 6 {
			add(transcript.Message{Role: []transcript.Role{"assistant", "user"}[i%2], Contents: []string{fmt.Sprintf("Short word %d.", i)}})
		}
		p, _, err := Prepare(recs, opt)
		if err != nil || p == nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if round == 1 && (strings.Contains(p.Input.Previous, "Requests (") || strings.Contains(p.Input.Previous, facts.Heading)) {
			t.Errorf("the previous notes hold sections or the ledger:\n%s", p.Input.Previous)
		}
		ex := &extractive.Summarizer{Counter: opt.Counter}
		out, err := ex.Summarize(context.Background(), p.Input)
		if err != nil {
			t.Fatal(err)
		}
		sum, err = p.Record(out, ex.Name(), transcript.NewIDs().New(int64(round+1)), int64(round), opt)
		if err != nil {
			t.Fatal(err)
		}
		text := sum.Message.Contents[0]
		for _, want := range []string{first, errLine, "internal/header/f29.go"} {
			if !strings.Contains(text, want) {
				t.Errorf("round %d: the summary lost %q:\n%s", round, want, text)
			}
		}
		if _, ledger, _ := strings.Cut(text, facts.Heading); strings.Contains(ledger, "parseThing") {
			t.Errorf("round %d: code names of a file's body reached the ledger:\n%s", round, text)
		}
		var s facts.Sections
		if err := json.Unmarshal(sum.Metadata.Aux["sections"], &s); err != nil || s.First != first {
			t.Fatalf("round %d: aux.sections %s (%v)", round, sum.Metadata.Aux["sections"], err)
		}
		recs = transcript.PlaceSummary(recs, sum, p.Span, false)
		recs = recs[transcript.LatestSummary(recs):]
		app = transcript.NewAppender("c", &recs[len(recs)-1], transcript.NewIDs(), func() int64 { return 2000 })
	}
}
