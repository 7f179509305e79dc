package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// sdkFields reads the fields of interface name from a .d.ts excerpt in
// testdata/sdk: the vendor's own type, as its SDK publishes it.
func sdkFields(t *testing.T, file, name string) []string {
	t.Helper()
	src, err := os.ReadFile("testdata/sdk/" + file)
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)export interface ` + name + ` \{(.*?)\n\}`).FindSubmatch(src)
	if body == nil {
		t.Fatalf("%s: no interface %s", file, name)
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^    (\w+)\??:`).FindAllSubmatch(body[1], -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestResponsesCompactionInputShape: a compaction item (and every item kept
// as provider data) goes back to the Responses API with only the keys its
// input type takes (openai 7.60 ResponseCompactionItemParam): created_by,
// output-only, is not sent, as the SDK's toResponseInputItems strips it.
func TestResponsesCompactionInputShape(t *testing.T) {
	allowed := sdkFields(t, "openai-7.60-compaction.d.ts", "ResponseCompactionItemParam")
	output := sdkFields(t, "openai-7.60-compaction.d.ts", "ResponseCompactionItem")
	if !slices.Contains(output, "created_by") || slices.Contains(allowed, "created_by") {
		t.Fatalf("excerpt: output %v, input %v", output, allowed)
	}
	input := `{"id":"01JRZJ166J2WRMF990535EVSR1","conversation":"c","message":{"role":"user","contents":["Weather in Paris?"]},"metadata":{"timing":{"creation":1}}}
{"id":"01JRZJ166J2WRMF990535EVSR4","conversation":"c","message":{"role":"summary","contents":["[provider compaction: no readable summary]"],"provider_data":[{"provider":"openai-responses","at":0,"item":{"id":"msg_u1","type":"message","status":"completed","role":"user","content":[{"type":"input_text","text":"Weather in Paris?"}],"created_by":"user_1"}},{"provider":"openai-responses","at":0,"item":{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA-cmp","created_by":"server"}}]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSR1"],"timing":{"creation":2}}}
{"id":"01JRZJ166J2WRMF990535EVSR7","conversation":"c","message":{"role":"user","contents":["Thanks."]},"metadata":{"timing":{"creation":3}}}
`
	var out bytes.Buffer
	req := Request{Provider: openaiResponses, Warn: func(string, ...any) {}}
	if err := RenderTranscript(&out, req, strings.NewReader(input), transcript.NewIDs(), func() int64 { return 1 }); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Input []map[string]json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(out.Bytes(), &body); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	found := false
	for _, it := range body.Input {
		if _, ok := it["created_by"]; ok {
			t.Errorf("item sent with output-only created_by: %s", out.String())
		}
		if string(it["type"]) != `"compaction"` {
			continue
		}
		found = true
		for k := range it {
			if !slices.Contains(allowed, k) {
				t.Errorf("compaction item sent with %q, not in ResponseCompactionItemParam %v", k, allowed)
			}
		}
		if string(it["encrypted_content"]) != `"gAAAA-cmp"` || string(it["id"]) != `"cmp_1"` {
			t.Errorf("compaction item lost its fields: %s", out.String())
		}
	}
	if !found {
		t.Fatalf("no compaction item sent: %s", out.String())
	}
}

// anthropicHistory is a conversation of three turns and an anthropic
// compaction summary covering them (item is its block; aux its aux), then
// a user turn.
func anthropicHistory(item, aux string) string {
	return `{"id":"01JRZJ166J2WRMF990535EVSR1","conversation":"c","message":{"role":"user","contents":["Weather in Paris?"]},"metadata":{"timing":{"creation":1}}}
{"id":"01JRZJ166J2WRMF990535EVSR2","conversation":"c","message":{"role":"assistant","contents":["18°C."]},"metadata":{"timing":{"creation":2}}}
{"id":"01JRZJ166J2WRMF990535EVSR3","conversation":"c","message":{"role":"user","contents":["And Rome?"]},"metadata":{"timing":{"creation":3}}}
{"id":"01JRZJ166J2WRMF990535EVSR4","conversation":"c","message":{"role":"summary","contents":["` + map[bool]string{true: transcript.CompactionMarker, false: "Paris 18°C; Rome asked."}[strings.Contains(item, `"content":null`)] + `"],"provider_data":[{"provider":"anthropic","at":0,"item":` + item + `}]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSR1","01JRZJ166J2WRMF990535EVSR2","01JRZJ166J2WRMF990535EVSR3"],"timing":{"creation":4},"aux":` + aux + `}}
{"id":"01JRZJ166J2WRMF990535EVSR5","conversation":"c","message":{"role":"user","contents":["Thanks."]},"metadata":{"timing":{"creation":5}}}
`
}

// renderAnthropic renders input for anthropic, returning the body, the
// warnings and the headers named.
func renderAnthropic(t *testing.T, input, cm string) (string, string, []string, error) {
	t.Helper()
	var out, warn bytes.Buffer
	var headers []string
	req := Request{Provider: "anthropic", Body: true, Model: "claude-x",
		Warn:   func(f string, a ...any) { warn.WriteString(fmt.Sprintf(f, a...) + "\n") },
		Header: func(n, v string) { headers = append(headers, n+": "+v) }}
	if cm != "" {
		var err error
		if req.ContextManagement, err = ParseContextManagement("anthropic", cm); err != nil {
			t.Fatal(err)
		}
	}
	err := RenderTranscript(&out, req, strings.NewReader(input), transcript.NewIDs(), func() int64 { return 1 })
	return out.String(), warn.String(), headers, err
}

// TestAnthropicCompactionHeader: a payload whose history opens with a
// compaction block names the anthropic-beta header it needs, with no
// --context-management asked for; a payload without one names none.
func TestAnthropicCompactionHeader(t *testing.T) {
	body, _, headers, err := renderAnthropic(t, anthropicHistory(`{"type":"compaction","content":"Paris 18°C; Rome asked.","signature":"sig"}`, `{"summarizer":"anthropic-compaction"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, `"type":"compaction"`) {
		t.Fatalf("no block sent: %s", body)
	}
	if want := []string{"anthropic-beta: compact-2026-01-12,compact-2026-09-04"}; !slices.Equal(headers, want) {
		t.Errorf("headers %q, want %q", headers, want)
	}
	_, _, headers, err = renderAnthropic(t, `{"role":"user","content":"Hi"}`, "")
	if err != nil || headers != nil {
		t.Errorf("plain history: headers %q, %v", headers, err)
	}
	_, _, headers, _ = renderAnthropic(t, `{"role":"user","content":"Hi"}`, "clear-tool-uses")
	if want := []string{"anthropic-beta: context-management-2025-06-27"}; !slices.Equal(headers, want) {
		t.Errorf("context editing: headers %q, want %q", headers, want)
	}
}

// TestAnthropicFailedCompaction: a compaction block whose content is null
// failed, and the API takes it as a no-op (BetaCompactionBlockParam); the
// SDK's runner keeps the conversation as it is. Rendered for anthropic, the
// records it covers are sent, and not the block alone with the next turn.
func TestAnthropicFailedCompaction(t *testing.T) {
	sdk, err := os.ReadFile("testdata/sdk/anthropic-1.17-compaction.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"content?: string | null;", "When content is None, the block represents a", "failed compaction. The server", "treats these as no-ops", "keeping the conversation as it is"} {
		if !bytes.Contains(sdk, []byte(doc)) {
			t.Fatalf("excerpt lacks %q", doc)
		}
	}
	body, warn, _, err := renderAnthropic(t, anthropicHistory(`{"type":"compaction","content":null,"encrypted_content":null}`, `{"summarizer":"anthropic-compaction"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Weather in Paris?", "18°C.", "And Rome?", "Thanks."} {
		if !strings.Contains(body, want) {
			t.Errorf("covered turn %q not sent: %s", want, body)
		}
	}
	if strings.Contains(body, `"compaction"`) {
		t.Errorf("failed block sent: %s", body)
	}
	if !strings.Contains(warn, "failed") {
		t.Errorf("warning %q does not say the compaction failed", warn)
	}
}

// TestAnthropicOnDemandBlockWithCompactEdit: a history opening with a
// block on-demand compaction made (it came alone: aux.usage) and a
// compact_20260112 edit are a request Anthropic refuses (the SDK refuses
// the pair, rejectCompactionEdit): ErrIncompatible, naming both. A block
// threshold compaction made (with its answer), or an edit that pauses
// after compaction, goes.
func TestAnthropicOnDemandBlockWithCompactEdit(t *testing.T) {
	sdk, err := os.ReadFile("testdata/sdk/anthropic-1.17-compaction.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(sdk, []byte("because the API doesn't accept a compaction block together with one")) {
		t.Fatal("excerpt lacks rejectCompactionEdit")
	}
	block := `{"type":"compaction","content":"Paris 18°C; Rome asked.","signature":"sig"}`
	alone := `{"summarizer":"anthropic-compaction","usage":{"input_tokens":9000,"output_tokens":300}}`
	for _, c := range []struct {
		name, aux, cm string
		refused       bool
	}{
		{"on demand, compact", alone, "compact", true},
		{"on demand, compact:TOKENS", alone, "compact:50000", true},
		{"on demand, JSON edit", alone, `{"edits":[{"type":"compact_20260112"}]}`, true},
		{"on demand, paused edit", alone, `{"edits":[{"type":"compact_20260112","pause_after_compaction":true}]}`, false},
		{"on demand, context editing", alone, "clear-tool-uses", false},
		{"on demand, summarize again", alone, "summarize", false},
		{"threshold, compact", `{"summarizer":"anthropic-compaction"}`, "compact", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, _, err := renderAnthropic(t, anthropicHistory(block, c.aux), c.cm)
			if c.refused != errors.Is(err, ErrIncompatible) {
				t.Fatalf("err %v, refused want %v", err, c.refused)
			}
			if c.refused && !(strings.Contains(err.Error(), "compact_20260112") && strings.Contains(err.Error(), "01JRZJ166J2WRMF990535EVSR4")) {
				t.Errorf("%v: does not name the edit and the block", err)
			}
		})
	}
}
