package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata with what the renderers print")

// The cases follow the providers' own documentation examples: the weather
// lookup of OpenAI's and Anthropic's function-calling guides, the "why is
// the sky blue" chat of Ollama's, the multi-turn chat of Gemini's.
var renderCases = []struct {
	name  string
	input string // a transcript, one record or message a line
	opt   Request
}{
	{name: "plain", input: `
{"role":"user","content":"Hello!"}
{"role":"assistant","content":"Hello there! How may I assist you today?"}
{"role":"user","content":"Why is the sky blue?"}`},
	{name: "system", input: `
{"role":"system","content":"You are a helpful assistant."}
{"role":"user","content":"Why is the sky blue?"}
{"role":"assistant","content":"Due to Rayleigh scattering."}
{"role":"user","content":"How is that different than Mie scattering?"}`},
	{name: "same_role", input: `
{"role":"user","content":"Hello,"}
{"role":"user","content":"are you there?"}
{"role":"assistant","content":"Yes."}
{"role":"assistant","content":"What can I do for you?"}
{"role":"user","content":"Nothing, thanks."}`},
	{name: "assistant_first", input: `
{"role":"assistant","content":"Welcome! Ask me anything."}
{"role":"user","content":"Why is the sky blue?"}`},
	{name: "contents", input: `
{"role":"user","contents":["Hi, there","how are you"]}
{"role":"assistant","contents":["Fine.","And you?"]}
{"role":"user","contents":["Good.","",""," "]}`},
	{name: "tool_call", input: `
{"role":"user","content":"What's the weather like in Boston today?"}
{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"get_current_weather","arguments":"{\n\"location\": \"Boston, MA\"\n}"}}]}
{"role":"tool","tool_call_id":"call_abc123","name":"get_current_weather","content":"{\"temperature\": \"22\", \"unit\": \"celsius\", \"description\": \"Sunny\"}"}
{"role":"assistant","content":"It is sunny and 22°C in Boston today."}`},
	{name: "parallel_tools", input: `
{"role":"user","content":"What's the weather in San Francisco and Tokyo?"}
{"role":"assistant","content":"Let me check both.","tool_calls":[{"id":"toolu_01A","name":"get_weather","arguments":"{\"location\":\"San Francisco, CA\"}"},{"id":"toolu_01B","name":"get_weather","arguments":"{\"location\":\"Tokyo, Japan\"}"}]}
{"role":"tool","tool_call_id":"toolu_01B","content":"12°C, rain"}
{"role":"tool","tool_call_id":"toolu_01A","content":"{\"temp\":15,\"sky\":\"fog\"}"}
{"role":"assistant","content":"San Francisco: 15°C and foggy. Tokyo: 12°C with rain."}`},
	{name: "error_result", input: `
{"role":"user","content":"What's the weather in Atlantis?"}
{"role":"assistant","tool_calls":[{"id":"call_1","name":"get_weather","arguments":"{\"location\":\"Atlantis\"}"}]}
{"role":"tool","tool_call_id":"call_1","name":"get_weather","is_error":true,"content":"Error: location not found"}
{"role":"assistant","content":"I could not find Atlantis."}`},
	{name: "results_then_user", input: `
{"role":"user","content":"Roll a die."}
{"role":"assistant","tool_calls":[{"id":"call_1","name":"roll","arguments":""}]}
{"role":"tool","tool_call_id":"call_1","content":"4"}
{"role":"user","content":"Now tell me what you rolled."}`},
	{name: "unicode", input: `
{"role":"user","content":"Héllo 👋🏽 <b>&</b>\n\t\"quoted\" \\ back\u2028slash"}
{"role":"assistant","content":"日本語も大丈夫。\r\n🙂"}`},
	{name: "summary", input: `
{"role":"system","content":"You are a weather bot."}
{"role":"user","content":"Old question."}
{"role":"assistant","content":"Old answer."}
{"role":"summary","content":"The user asked about Paris; it was 18°C."}
{"role":"user","content":"And Rome?"}`},
	// Provider data goes back to its own provider only, in its place: an
	// Anthropic thinking block and an OpenAI reasoning item before the
	// text, Gemini's call as Gemini sent it (no id, its signature), and
	// its result without the id convo made up.
	{name: "provider_data", input: `
{"role":"user","content":"What's the weather in Paris?"}
{"role":"assistant","contents":["Let me check."],"tool_calls":[{"id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}],"provider_data":[{"provider":"anthropic","at":0,"item":{"type":"thinking","thinking":"The user wants the weather.","signature":"EqQBCgIYAhIM"}},{"provider":"openai-responses","at":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAAAABo"}},{"provider":"gemini","at":1,"item":{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnMQ=="},"replaces":true}]}
{"role":"tool","tool_call_id":"call_1","content":"18°C"}
{"role":"assistant","content":"18°C in Paris."}`},
	// Messages the Responses API gave go back to it whole (id, status,
	// phase); to every other provider, and without a stub, as text.
	{name: "responses_message", input: `
{"role":"user","content":"List the files."}
{"role":"assistant","contents":["Looking.","Done."],"tool_calls":[{"id":"call_1","name":"ls","arguments":"{}"}],"provider_data":[{"provider":"openai-responses","at":0,"item":{"type":"message","id":"msg_a","status":"completed","phase":"commentary"}},{"provider":"openai-responses","at":1,"item":{"type":"message","id":"msg_b","status":"completed"}}]}
{"role":"tool","tool_call_id":"call_1","content":"a.txt"}
{"role":"assistant","content":"One file."}`},
	// A Gemini turn where a tool ran on Google's side: the call and its
	// result go back as Gemini sent them, and to no other provider.
	{name: "server_tool", input: `
{"role":"user","content":"Weather in Paris?"}
{"role":"assistant","contents":["It is sunny."],"provider_data":[{"provider":"gemini","at":0,"item":{"functionCall":{"id":"srv_1","name":"google_search","args":{"q":"weather Paris"}}}},{"provider":"gemini","at":0,"item":{"functionResponse":{"id":"srv_1","name":"google_search","response":{"result":"sunny"}}}},{"provider":"anthropic","at":0,"item":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"weather Paris"}}}]}
{"role":"user","content":"Thanks."}`},
	{name: "body", input: `
{"role":"system","content":"You are a helpful assistant."}
{"role":"user","content":"Hello!"}`, opt: Request{Body: true, Model: "model-x", MaxTokens: 1024, Temperature: ptr(0.2)}},
	// --tools: the definitions in each provider's form, so that a body
	// whose history holds tool calls is one the provider takes.
	{name: "tools", input: `
{"role":"user","content":"What's the weather like in Boston today?"}
{"role":"assistant","tool_calls":[{"id":"call_abc123","name":"get_current_weather","arguments":"{\"location\":\"Boston, MA\"}"}]}
{"role":"tool","tool_call_id":"call_abc123","content":"22°C, sunny"}`, opt: Request{Body: true, Model: "model-x", Tools: []Tool{
		{Name: "get_current_weather", Description: "Get the current weather in a given location",
			Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"}},"required":["location"]}`)},
		{Name: "get_time"}}}},
	{name: "body_defaults", input: `
{"role":"user","content":"Hello!"}`, opt: Request{Body: true, Model: "model-x"}},
	// An agent interrupted: call_2 got no result before the user spoke
	// (call_1's came), and the last call waits for its result. Each is
	// sent with the result NoResult; the last one is said on stderr.
	{name: "interrupted", input: `
{"id":"01JRZJ166J2WRMF990535EVSR0","role":"user","content":"List the files, then read the biggest."}
{"id":"01JRZJ166J2WRMF990535EVSR1","role":"assistant","content":"Listing.","tool_calls":[{"id":"call_1","name":"list_files","arguments":"{\"dir\":\".\"}"},{"id":"call_2","name":"read_file","arguments":"{\"path\":\"big.txt\"}"}]}
{"id":"01JRZJ166J2WRMF990535EVSR2","role":"tool","tool_call_id":"call_1","content":"big.txt small.txt"}
{"id":"01JRZJ166J2WRMF990535EVSR3","role":"user","content":"Stop. Read small.txt instead."}
{"id":"01JRZJ166J2WRMF990535EVSR4","role":"assistant","tool_calls":[{"id":"call_3","name":"read_file","arguments":"{\"path\":\"small.txt\"}"}]}`},
	{name: "lenient", input: `
{"id":"01JRZJ166J2WRMF990535EVSQS","role":"user","content":"Do things."}
{"id":"01JRZJ166J2WRMF990535EVSQT","role":"assistant","content":"On it.","tool_calls":[{"id":"c1","name":"f","arguments":"{not json"},{"id":"c2","name":"g","arguments":"{}"}]}
{"id":"01JRZJ166J2WRMF990535EVSQV","role":"tool","tool_call_id":"c1","content":"done f"}
{"id":"01JRZJ166J2WRMF990535EVSQW","role":"tool","tool_call_id":"zz","content":"stray"}
{"id":"01JRZJ166J2WRMF990535EVSQX","role":"user","content":"Thanks."}`, opt: Request{Lenient: true}},
}

func ptr[T any](v T) *T { return &v }

// view applies the transcript rules to input and returns the LLM view, as
// render does with a transcript on stdin.
func view(t testing.TB, input string) transcript.View {
	t.Helper()
	app := transcript.NewAppender("", nil, transcript.NewIDs(), func() int64 { return 1744815823058 })
	var recs []*transcript.Record
	dec := transcript.NewDecoder(strings.NewReader(input))
	for {
		r, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range app.Append(r) {
			if ch.Kind == transcript.Inserted {
				recs = append(recs, ch.Record)
			}
		}
	}
	var b transcript.ViewBuilder
	for _, r := range recs {
		b.Add(*r)
	}
	return b.View()
}

// render renders input for one provider and returns stdout and warnings.
func render(t testing.TB, provider, input string, opt Request) (string, string, error) {
	t.Helper()
	v := view(t, input)
	var warn bytes.Buffer
	opt.Provider = provider
	opt.Warn = func(f string, a ...any) { fmt.Fprintf(&warn, f+"\n", a...) }
	if v.System != nil {
		opt.System = v.System.Message.Contents
	}
	if v.Summary != nil {
		opt.Summary = v.Summary.Message.Contents[0]
	}
	var out bytes.Buffer
	r, err := NewRenderer(&out, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v.Messages {
		if err := r.Add(&v.Messages[i]); err != nil {
			return out.String(), warn.String(), err
		}
	}
	err = r.Close()
	return out.String(), warn.String(), err
}

func TestRenderGolden(t *testing.T) {
	for _, p := range Names(CanRender) {
		for _, c := range renderCases {
			t.Run(p+"/"+c.name, func(t *testing.T) {
				if prov, _ := Lookup(p); c.opt.Body && c.opt.Model != "" && prov.ModelInURL {
					c.opt.Model = ""
				}
				out, warn, err := render(t, p, c.input, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
					t.Errorf("output is not one line:\n%s", out)
				}
				// The golden file is indented for review; json.Indent keeps
				// key order and every string byte for byte. Record ids
				// made up for the input are random: each becomes ID1, ID2...
				// in order of appearance.
				out = stableIDs(out)
				var got bytes.Buffer
				if err := json.Indent(&got, []byte(out), "", "  "); err != nil {
					t.Fatalf("output is not JSON: %v\n%s", err, out)
				}
				if warn != "" {
					got.WriteString("\n--- stderr\n" + warn)
				} else {
					got.WriteString("\n")
				}
				golden.Check(t, filepath.Join("testdata", p, c.name+".json"), got.Bytes(), *update)
			})
		}
	}
}

var ulidRE = regexp.MustCompile(`\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b`)

// stableIDs replaces each distinct ULID of s by ID1, ID2... in order.
func stableIDs(s string) string {
	seen := map[string]string{}
	return ulidRE.ReplaceAllStringFunc(s, func(id string) string {
		if _, ok := seen[id]; !ok {
			seen[id] = fmt.Sprintf("ID%d", len(seen)+1)
		}
		return seen[id]
	})
}

func TestRenderInvalid(t *testing.T) {
	const resultNoCall = `
{"id":"01JRZJ166J2WRMF990535EVSQS","role":"user","content":"Hi"}
{"id":"01JRZJ166J2WRMF990535EVSQT","role":"assistant","content":"Hello."}
{"id":"01JRZJ166J2WRMF990535EVSQV","role":"tool","tool_call_id":"call_9","content":"ok"}`
	const badArgs = `
{"id":"01JRZJ166J2WRMF990535EVSQS","role":"user","content":"Hi"}
{"id":"01JRZJ166J2WRMF990535EVSQT","role":"assistant","tool_calls":[{"id":"call_1","name":"f","arguments":"[1,2]"}]}
{"id":"01JRZJ166J2WRMF990535EVSQV","role":"tool","tool_call_id":"call_1","content":"ok"}`
	for _, c := range []struct {
		name, provider, input string
		want                  []string // substrings of the error
	}{
		{"result without call", "gemini", resultNoCall, []string{"01JRZJ166J2WRMF990535EVSQV", "call_9"}},
		{"arguments not an object", "anthropic", badArgs, []string{"01JRZJ166J2WRMF990535EVSQT", "call_1", "not a JSON object"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := render(t, c.provider, c.input, Request{})
			var ie *transcript.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want an *transcript.InputError", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if out != "" {
				t.Errorf("wrote output on error: %s", out)
			}
			// --lenient repairs the same input and says what it did.
			out, warn, err := render(t, c.provider, c.input, Request{Lenient: true})
			if err != nil || !json.Valid([]byte(out)) || warn == "" {
				t.Errorf("lenient: err %v, warnings %q, output %s", err, warn, out)
			}
		})
	}
	// OpenAI keeps arguments as a string, byte for byte: nothing to repair.
	if _, _, err := render(t, "openai", badArgs, Request{}); err != nil {
		t.Errorf("openai with non-object arguments: %v", err)
	}
}

// TestRenderInterrupted: a tool call without its result (an agent
// interrupted, or a call whose result is still to come) is no invalid
// input: every provider is sent the call with the result NoResult, in
// the user turn after it, and only a call at the end of the view, which
// nothing followed, is said on stderr (issue 27 item 19).
func TestRenderInterrupted(t *testing.T) {
	const (
		user   = `{"id":"01JRZJ166J2WRMF990535EVSQS","role":"user","content":"Hi"}` + "\n"
		calls  = `{"id":"01JRZJ166J2WRMF990535EVSQT","role":"assistant","tool_calls":[{"id":"call_1","name":"f","arguments":"{}"},{"id":"call_2","name":"g","arguments":"{}"}]}` + "\n"
		result = `{"id":"01JRZJ166J2WRMF990535EVSQV","role":"tool","tool_call_id":"call_2","content":"ok"}` + "\n"
		again  = `{"id":"01JRZJ166J2WRMF990535EVSQW","role":"user","content":"Well?"}` + "\n"
		answer = `{"id":"01JRZJ166J2WRMF990535EVSQX","role":"assistant","content":"Done."}` + "\n"
	)
	for _, c := range []struct {
		name, input string
		missing     int  // calls sent with NoResult
		warn        bool // said on stderr
	}{
		{"a result, then the user", user + calls + result + again, 1, false},
		{"the user before any result", user + calls + again + answer, 2, false},
		{"a result after the user turn", user + calls + again + result + answer, 1, false},
		{"the last calls wait", user + calls, 2, true},
		{"the last calls wait, one answered", user + calls + result, 1, true},
	} {
		for _, p := range Names(CanRender) {
			t.Run(c.name+"/"+p, func(t *testing.T) {
				out, warn, err := render(t, p, c.input, Request{})
				if err != nil {
					t.Fatalf("render: %v", err)
				}
				if !json.Valid([]byte(out)) {
					t.Fatalf("not JSON: %s", out)
				}
				if n := strings.Count(out, NoResult); n != c.missing {
					t.Errorf("%d results %q, want %d: %s", n, NoResult, c.missing, out)
				}
				if got := strings.Contains(warn, "have no result yet"); got != c.warn {
					t.Errorf("stderr %q; want a note: %v", warn, c.warn)
				}
				// The placeholder answers its call, which stays in the
				// payload.
				if !strings.Contains(out, `"f"`) || !strings.Contains(out, `"g"`) {
					t.Errorf("a call is gone: %s", out)
				}
				// Ollama pairs results with calls by place: they follow
				// the calls' order (f's first), whatever came first.
				if p == "ollama" && strings.Index(out, `"tool_name":"f"`) > strings.Index(out, `"tool_name":"g"`) {
					t.Errorf("results out of the calls' order: %s", out)
				}
			})
		}
	}
}

// TestRenderStreams checks that records fed one by one give the same bytes
// as the renderer's output over the whole view, with Add taking the summary.
func TestRenderSummaryRecord(t *testing.T) {
	var out bytes.Buffer
	r, err := NewRenderer(&out, Request{Provider: "anthropic", System: []string{"Be brief."}})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []transcript.Record{
		{ID: "s", Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{"Earlier: nothing."}}},
		{ID: "sys", Message: transcript.Message{Role: transcript.RoleSystem, Contents: []string{"ignored"}}},
		{ID: "u", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Hi"}}},
	} {
		if err := r.Add(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	want := `{"system":[{"type":"text","text":"Be brief."},{"type":"text","text":"` + SummaryHeading + `\nEarlier: nothing."}],"messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}` + "\n"
	if out.String() != want {
		t.Errorf("got  %s\nwant %s", out.String(), want)
	}
	late := transcript.Record{ID: "s2", Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{"x"}}}
	if err := r.Add(&late); err == nil {
		t.Error("a summary after messages was accepted")
	}
}

func TestUnknownProvider(t *testing.T) {
	if _, err := NewRenderer(io.Discard, Request{Provider: "cohere"}); err == nil {
		t.Error("unknown provider accepted")
	}
}

func BenchmarkRenderOpenAI(b *testing.B) {
	const n = 1000
	recs := make([]transcript.Record, 0, n)
	for i := range n {
		m := transcript.Message{Role: transcript.RoleUser, Contents: []string{fmt.Sprintf("Question %d: why is the sky blue? Please answer in detail.", i)}}
		if i%2 == 1 {
			m = transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"Because of Rayleigh scattering: shorter wavelengths scatter more."}}
		}
		recs = append(recs, transcript.Record{ID: fmt.Sprint(i), Message: m})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := NewRenderer(io.Discard, Request{Provider: "openai", System: []string{"You are terse."}})
		if err != nil {
			b.Fatal(err)
		}
		for i := range recs {
			if err := r.Add(&recs[i]); err != nil {
				b.Fatal(err)
			}
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/msg")
}
