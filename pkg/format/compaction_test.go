package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestParseCompaction: a compaction block or item is found, byte for byte,
// with its readable text where the provider gives one, beside the answer
// or alone (on-demand compaction, /responses/compact).
func TestParseCompaction(t *testing.T) {
	for _, c := range []struct {
		name, provider, body string
		items                []string
		text                 string
		alone                bool
		answer               string // the answer's text
		err                  string
	}{
		{name: "anthropic threshold", provider: "anthropic", body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x",
			"content":[{"type":"compaction","content":"Summary of the conversation: Paris, 18°C."},{"type":"text","text":"Rome is 21°C."}],
			"stop_reason":"end_turn","usage":{"input_tokens":151000,"output_tokens":20,"iterations":[{"type":"compaction","input_tokens":150000,"output_tokens":900}]}}`,
			items: []string{`{"type":"compaction","content":"Summary of the conversation: Paris, 18°C."}`}, text: "Summary of the conversation: Paris, 18°C.", answer: "Rome is 21°C."},
		{name: "anthropic on demand", provider: "anthropic", body: `{"id":"msg_2","type":"message","role":"assistant","model":"claude-x",
			"content":[{"type":"compaction","content":"The user asked about Paris.","signature":"EqQBCgIYAh"}],"stop_reason":"compaction","usage":{"input_tokens":9000,"output_tokens":300}}`,
			items: []string{`{"type":"compaction","content":"The user asked about Paris.","signature":"EqQBCgIYAh"}`}, text: "The user asked about Paris.", alone: true},
		{name: "anthropic null content", provider: "anthropic", body: `{"id":"msg_3","type":"message","role":"assistant","model":"claude-x",
			"content":[{"type":"compaction","content":null,"encrypted_content":"ZW5j","tool_changes":[{"type":"tool_removal","name":"ls"}]},{"type":"text","text":"Done."}],"stop_reason":"end_turn"}`,
			items: []string{`{"type":"compaction","content":null,"encrypted_content":"ZW5j","tool_changes":[{"type":"tool_removal","name":"ls"}]}`}, answer: "Done."},
		{name: "anthropic bad content", provider: "anthropic", body: `{"id":"msg_4","type":"message","content":[{"type":"compaction","content":3}],"stop_reason":"compaction"}`, err: "content"},
		{name: "responses context_management", provider: "openai-responses", body: `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5",
			"output":[{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA-cmp","created_by":"server"},
			{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Rome is 21°C.","annotations":[]}]}]}`,
			items: []string{`{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA-cmp","created_by":"server"}`}, answer: "Rome is 21°C."},
		{name: "responses compact", provider: "openai-responses", body: `{"id":"resp_2","object":"response.compaction","created_at":1764000000,
			"output":[{"id":"msg_u1","type":"message","status":"completed","role":"user","content":[{"type":"input_text","text":"Weather in Paris?"}]},
			{"type":"compaction","id":"cmp_2","encrypted_content":"gAAAA-cmp2"}],"usage":{"input_tokens":900,"output_tokens":80,"total_tokens":980}}`,
			items: []string{`{"id":"msg_u1","type":"message","status":"completed","role":"user","content":[{"type":"input_text","text":"Weather in Paris?"}]}`,
				`{"type":"compaction","id":"cmp_2","encrypted_content":"gAAAA-cmp2"}`}, alone: true},
		{name: "responses compact without item", provider: "openai-responses", body: `{"id":"resp_3","object":"response.compaction","output":[]}`, err: "compaction item"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ans, err := ParseResponse(c.provider, []byte(c.body), nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cp := ans.Compaction
			if cp == nil {
				t.Fatal("no compaction")
			}
			var items []string
			for _, it := range cp.Items {
				items = append(items, string(it))
			}
			if !equalJSON(items, c.items) || cp.Text != c.text || cp.Alone != c.alone {
				t.Errorf("compaction %q %q alone=%v, want %q %q %v", items, cp.Text, cp.Alone, c.items, c.text, c.alone)
			}
			if !c.alone && ans.Text() != c.answer {
				t.Errorf("answer %q, want %q", ans.Text(), c.answer)
			}
			sum := cp.Summary(c.provider, []string{"01JRZJ166J2WRMF990535EVSQS"}, nil)
			if err := transcript.Validate(&sum); err != nil || !sum.IsCompaction() || sum.Readable() != (c.text != "") {
				t.Errorf("summary %+v: %v", sum, err)
			}
		})
	}
}

// compactionCases are transcripts whose latest summary stands for a
// provider's compaction, rendered for every provider: the items go first,
// verbatim, to the provider that made them; a readable summary goes to the
// others as any summary; an unreadable one leaves the covered records in
// the view, with a note.
var compactionCases = []struct{ name, input string }{
	{name: "compaction_anthropic", input: `
{"id":"01JRZJ166J2WRMF990535EVSR0","role":"system","content":"You are terse."}
{"id":"01JRZJ166J2WRMF990535EVSR1","role":"user","content":"Weather in Paris?"}
{"id":"01JRZJ166J2WRMF990535EVSR2","role":"assistant","content":"18°C."}
{"id":"01JRZJ166J2WRMF990535EVSR3","role":"user","content":"And Rome?"}
{"id":"01JRZJ166J2WRMF990535EVSR4","message":{"role":"summary","contents":["Paris was 18°C; Rome asked."],"provider_data":[{"provider":"anthropic","at":0,"item":{"type":"compaction","content":"Paris was 18°C; Rome asked.","signature":"EqQBsig"}}]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSR1","01JRZJ166J2WRMF990535EVSR2","01JRZJ166J2WRMF990535EVSR3"],"timing":{"creation":1}}}
{"id":"01JRZJ166J2WRMF990535EVSR5","role":"assistant","content":"21°C."}
{"id":"01JRZJ166J2WRMF990535EVSR6","role":"user","content":"Thanks."}`},
	{name: "compaction_openai", input: `
{"id":"01JRZJ166J2WRMF990535EVSR1","role":"user","content":"Weather in Paris?"}
{"id":"01JRZJ166J2WRMF990535EVSR2","role":"assistant","content":"18°C."}
{"id":"01JRZJ166J2WRMF990535EVSR3","role":"user","content":"And Rome?"}
{"id":"01JRZJ166J2WRMF990535EVSR4","message":{"role":"summary","contents":["[provider compaction: no readable summary]"],"provider_data":[{"provider":"openai-responses","at":0,"item":{"id":"msg_u1","type":"message","status":"completed","role":"user","content":[{"type":"input_text","text":"Weather in Paris?"}]}},{"provider":"openai-responses","at":0,"item":{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA-cmp"}}]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSR1","01JRZJ166J2WRMF990535EVSR2","01JRZJ166J2WRMF990535EVSR3"],"timing":{"creation":1}}}
{"id":"01JRZJ166J2WRMF990535EVSR7","role":"user","content":"Thanks."}`},
}

func TestRenderCompactionGolden(t *testing.T) {
	for _, p := range Names(CanRender) {
		for _, c := range compactionCases {
			t.Run(p+"/"+c.name, func(t *testing.T) {
				var out, warn bytes.Buffer
				req := Request{Provider: p, Warn: func(f string, a ...any) { fmt.Fprintf(&warn, f+"\n", a...) }}
				if err := RenderTranscript(&out, req, strings.NewReader(c.input), transcript.NewIDs(), func() int64 { return 1744815823058 }); err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := json.Indent(&got, []byte(stableIDs(out.String())), "", "  "); err != nil {
					t.Fatalf("output is not JSON: %v\n%s", err, out.String())
				}
				got.WriteString("\n")
				if warn.Len() > 0 {
					got.WriteString("--- stderr\n" + warn.String())
				}
				golden.Check(t, filepath.Join("testdata", p, c.name+".json"), got.Bytes(), *update)
			})
		}
	}
}
