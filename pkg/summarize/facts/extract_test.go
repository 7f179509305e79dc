package facts

import (
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// TestExtractShapes: every shape of the table is found whole, at the start
// of a message, mid-sentence and after a colon, with the words of its own
// sentence that say what it is.
func TestExtractShapes(t *testing.T) {
	tests := []struct{ kind, label, fact string }{
		{"id", "courier reference", "AZ-7781-XQ"},
		{"id", "incident", "INC-2291-B"},
		{"id", "purchase order", "PO#48812"},
		{"email", "billing contact", "billing@acme.example"},
		{"url", "status page", "https://status.example.com/incidents/8841?region=eu-west"},
		{"iban", "refund IBAN", "DE89 3704 0044 0532 0130 00"},
		{"phone", "callback number", "+44 20 7946 0958"},
		{"version", "release", "v2.14.3-rc1"},
		{"date", "delivery date", "2026-03-14"},
		{"date", "renewal deadline", "14 March 2026"},
		{"time", "outage start", "09:30 UTC"},
		{"time", "callback time", "11:15 local time"},
		{"time", "maintenance start", "02:00 UTC+2"},
		{"time", "cutover", "18:30 GMT-05:30"},
		{"time", "deploy window", "10:00+02:00"},
		{"time", "backup start", "03:45Z"},
		{"amount", "refund amount", "$1,249.99"},
		{"amount", "renewal price", "1826 EUR"},
		{"path", "error log", "/var/log/app/error.log"},
		{"path", "crash dump", `C:\Users\anna\logs\crash-8567.dmp`},
		{"id", "item SKU", "SKU-88120-BLK"},
		{"id", "fix commit", "3f9a2c1"},
		{"id", "working branch", "fix/header-parsing"},
		{"name", "failing test", "TestParseHeader/empty_input"},
		{"name", "environment variable", "HTTPX_WORKERS"},
		{"id", "issue", "#4130"},
	}
	for _, tt := range tests {
		for _, text := range []string{
			"The " + tt.label + " is " + tt.fact + ", thanks.",
			"Please note the " + tt.label + ": " + tt.fact + ".",
			tt.fact + " is the " + tt.label + ".",
			"Hi! Our " + tt.label + " (" + tt.fact + ") changed.",
		} {
			got := Extract(text)
			i := slices.IndexFunc(got, func(f Found) bool { return f.Text == tt.fact })
			if i < 0 {
				t.Errorf("%s: %q not found in %q: %+v", tt.kind, tt.fact, text, got)
				continue
			}
			if got[i].Kind != tt.kind {
				t.Errorf("%q: kind %q, want %q", tt.fact, got[i].Kind, tt.kind)
			}
			if got[i].Label != tt.label {
				t.Errorf("%q in %q: label %q, want %q", tt.fact, text, got[i].Label, tt.label)
			}
		}
	}
}

// TestExtractTimeZone: a time takes the zone that follows it, and no more:
// a range is two times, a word after a space is no zone unless it is one.
func TestExtractTimeZone(t *testing.T) {
	for text, want := range map[string][]string{
		"Call me at 11:15 local time please.":  {"11:15 local time"},
		"It starts 9:00 am PST sharp.":         {"9:00 am PST"},
		"Open 10:00-11:00 daily.":              {"10:00", "11:00"},
		"Meet at 14:30 near the local timber.": {"14:30"},
		"Book 14:30 +44 20 7946 0958 now.":     {"14:30", "+44 20 7946 0958"},
	} {
		var got []string
		for _, f := range Extract(text) {
			got = append(got, f.Text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Extract(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestExtractWholeCommands: inline code and a diagnostic are one fact each,
// whole.
func TestExtractWholeCommands(t *testing.T) {
	for text, want := range map[string]string{
		"Run `systemctl restart nginx` and retry.":                          "systemctl restart nginx",
		"./header.go:41:12: too many arguments in call to parseHeaderBytes": "./header.go:41:12: too many arguments in call to parseHeaderBytes",
	} {
		if got := Extract(text); len(got) == 0 || got[0].Text != want {
			t.Errorf("Extract(%q) = %+v, want %q first", text, got, want)
		}
	}
}

// TestNotIdentifiers: plain words, small numbers and joined words are no
// facts.
func TestNotIdentifiers(t *testing.T) {
	for _, text := range []string{
		"Thanks, Mel! That was a well-known and/or e.g. case.",
		"I have 2 dogs, 12 cats and 300 fish; 3D, 2nd, 21st, 10km, 5pm.",
		"Details: Perfect! Keep it up.",
		`{"name": "x", "in_stock": true}`,
	} {
		for _, f := range Extract(text) {
			if f.Text != "in_stock" || !strings.HasPrefix(text, "{") {
				t.Errorf("%q: %+v is no identifier", text, f)
			}
		}
	}
}

// TestOf: a call's short arguments are facts whole, labelled by their key
// and said by the call; a user's instruction is one fact; a tool result's
// JSON keys are labels, its values facts.
func TestOf(t *testing.T) {
	call := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{
		{ID: "c1", Name: "bash", Arguments: `{"command":"go test -run '^TestX$' ./internal/x/"}`},
	}}}
	got := Of(&call)
	if len(got) != 1 || got[0].Text != "go test -run '^TestX$' ./internal/x/" || got[0].Label != "command" || got[0].By != "tool call bash" {
		t.Errorf("call: %+v", got)
	}
	user := transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{
		"Before we start: please always reply in English and cc billing@acme.example. Thanks!"}}}
	got = Of(&user)
	if !slices.ContainsFunc(got, func(f Found) bool {
		return f.Kind == "instruction" && f.Text == "Before we start: please always reply in English and cc billing@acme.example."
	}) {
		t.Errorf("instruction: %+v", got)
	}
	result := transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "c1",
		Contents: []string{`{"sku": "WID-0042", "url": "https://x.example/p/42?ref=a"}`}}}
	got = Of(&result)
	if len(got) != 2 || got[0] != (Found{Text: "WID-0042", Label: "sku", Kind: "id"}) || got[1].Label != "url" {
		t.Errorf("result: %+v", got)
	}
}

// TestLedgerText: each entry shows its label before it, grouped by who
// said it, and the ledger says how many entries it dropped; Missing
// repeats only what the notes do not hold with its label in one part.
func TestLedgerText(t *testing.T) {
	ledger := []Fact{
		{Text: "AZ-7781-XQ", Label: "courier reference", Kind: "id", Seen: 1, By: "user"},
		{Text: "Please always cc billing.", Kind: "instruction", Seen: 1, By: "user"},
		{Text: "INC-1", Label: "incident", Kind: "id", Seen: 2, By: "assistant"},
	}
	want := "Facts carried verbatim: (3 less used dropped)\n- user: courier reference AZ-7781-XQ | Please always cc billing.\n- assistant: incident INC-1"
	if got := Text(ledger, 3); got != want {
		t.Errorf("Text:\n%s\nwant\n%s", got, want)
	}
	notes := "the courier reference; AZ-7781-XQ → escalated\nincident INC-1 opened"
	got := Missing(notes, ledger)
	if len(got) != 2 || got[0].Text != "AZ-7781-XQ" || got[1].Kind != "instruction" {
		t.Errorf("Missing = %+v, want the id apart from its label, and the instruction", got)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("Order ORD-55821 for $1,249.99 on 14 March 2026 at 09:30 UTC, see https://x.y/z?a=1.")
	f.Add("`go test ./...` ./a.go:1:2: undefined: x +44 20 7946 0958 DE89 3704 0044 0532 0130 00")
	f.Add(`{"path": "/etc/x.conf", "n": [1, "v1.2.3"]}`)
	f.Add("Please always reply in English.")
	f.Fuzz(func(t *testing.T, text string) {
		_, isJSON := jsonValues(text)
		for _, fact := range append(Extract(text), Instructions(text)...) {
			if strings.TrimSpace(fact.Text) == "" {
				t.Fatalf("empty fact from %q", text)
			}
			if !isJSON && fact.Kind != "instruction" && !strings.Contains(text, fact.Text) {
				t.Fatalf("fact %q is not a piece of %q", fact.Text, text)
			}
			if len(strings.Fields(fact.Label)) > labelWords {
				t.Fatalf("label %q longer than %d words", fact.Label, labelWords)
			}
		}
	})
}

// TestOfToolBody: a tool result's body gives the ledger its paths and
// URLs, not the names of the code it shows nor the ids a log prints; a
// JSON result's short values are data and stay facts.
func TestOfToolBody(t *testing.T) {
	body := transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "c1", Name: "read_file", Contents: []string{
		"package header\n\n// parseA reads internal/header/parse.go's input.\nfunc parseA(b []byte) (HeaderValue, error) {\n\treturn decode_all(b, MAX_BYTES)\n}\n// see https://example.com/spec\n"}}}
	var got []string
	for _, f := range Of(&body) {
		got = append(got, f.Text)
		if f.Kind != "path" && f.Kind != "url" {
			t.Errorf("%q (%s) taken from a file's body", f.Text, f.Kind)
		}
	}
	if !slices.Contains(got, "https://example.com/spec") {
		t.Errorf("the body's URL is lost: %q", got)
	}
}
