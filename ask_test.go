package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/transcript"
)

// askKey is the API key the ask tests send: it must never appear in
// output, stored records or raw files.
const askKey = "sk-ask-test-KEY-5f2e9c01"

// fakeProvider is one provider as the ask tests see it; the shared fake
// server (internal/providertest) speaks its wire format.
type fakeProvider struct {
	name, keyEnv, urlEnv string
	model                string
	cut                  []string // finish reasons that mean incomplete or refused
	// idless: the provider gives tool calls no id (convo makes them up).
	idless bool
	// authOK checks the request's authentication headers, as the fake
	// recorded them (the key as [KEY]).
	authOK func(h http.Header) bool
	// schemaSent finds the answer schema in a request body.
	schemaSent func(body map[string]any) any
	// toolsSent finds the tool names in a request body.
	toolsSent func(body map[string]any) []string
}

func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSpace(b.String())
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// functionToolNames are the names of the tools an OpenAI-style body
// ({"tools":[{"function":{"name":...}}]}, also Ollama's) offers.
func functionToolNames(b map[string]any) []string {
	var names []string
	tools, _ := b["tools"].([]any)
	for _, t := range tools {
		names = append(names, fmt.Sprint(dig(t, "function", "name")))
	}
	return names
}

var fakeProviders = []fakeProvider{
	{
		name: "openai", keyEnv: "OPENAI_API_KEY", urlEnv: "OPENAI_BASE_URL",
		cut:    []string{"length", "content_filter"},
		authOK: func(h http.Header) bool { return h.Get("Authorization") == "Bearer [KEY]" },
		schemaSent: func(b map[string]any) any {
			if dig(b, "response_format", "type") != "json_schema" {
				return nil
			}
			return dig(b, "response_format", "json_schema", "schema")
		},
		toolsSent: functionToolNames,
	},
	{
		name: "anthropic", keyEnv: "ANTHROPIC_API_KEY", urlEnv: "ANTHROPIC_BASE_URL",
		cut: []string{"max_tokens", "refusal", "pause_turn", "model_context_window_exceeded"},
		authOK: func(h http.Header) bool {
			return h.Get("x-api-key") == "[KEY]" && h.Get("anthropic-version") == "2023-06-01" && h.Get("Authorization") == ""
		},
		schemaSent: func(b map[string]any) any {
			if dig(b, "tool_choice", "name") != "structured_answer" {
				return nil
			}
			tools, _ := b["tools"].([]any)
			for _, t := range tools {
				if dig(t, "name") == "structured_answer" {
					return dig(t, "input_schema")
				}
			}
			return nil
		},
		toolsSent: func(b map[string]any) []string {
			var names []string
			tools, _ := b["tools"].([]any)
			for _, t := range tools {
				names = append(names, fmt.Sprint(dig(t, "name")))
			}
			return names
		},
	},
	{
		name: "gemini", keyEnv: "GEMINI_API_KEY", urlEnv: "GOOGLE_GEMINI_BASE_URL", idless: true,
		cut:    []string{"MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "OTHER"},
		authOK: func(h http.Header) bool { return h.Get("x-goog-api-key") == "[KEY]" },
		schemaSent: func(b map[string]any) any {
			if dig(b, "generationConfig", "responseMimeType") != "application/json" {
				return nil
			}
			return dig(b, "generationConfig", "responseJsonSchema")
		},
		toolsSent: func(b map[string]any) []string {
			var names []string
			tools, _ := b["tools"].([]any)
			for _, t := range tools {
				decls, _ := dig(t, "functionDeclarations").([]any)
				for _, d := range decls {
					names = append(names, fmt.Sprint(dig(d, "name")))
				}
			}
			return names
		},
	},
	{
		name: "ollama", urlEnv: "OLLAMA_HOST", model: "llama3.2", idless: true,
		cut:        []string{"length"},
		authOK:     func(h http.Header) bool { return h.Get("Authorization") == "" },
		schemaSent: func(b map[string]any) any { return b["format"] },
		toolsSent:  functionToolNames,
	},
}

// answer and step are the shared fake's.
type (
	answer  = providertest.Answer
	askCall = providertest.Call
	step    = providertest.Step
)

// newAskServer starts the shared fake playing steps in order, the last one
// again and again; it wants the test key from the providers that take one.
func newAskServer(t *testing.T, p fakeProvider, steps ...step) *providertest.Server {
	t.Helper()
	key := ""
	if p.keyEnv != "" {
		key = askKey
	}
	s := providertest.Start(providertest.Options{Steps: steps, Key: key})
	t.Cleanup(s.Close)
	return s
}

// askEnv points every provider at srv with the test key, and makes retries
// quick: the first backoff at most 1ms, any wait (Retry-After included) at
// most 200ms.
func askEnv(t *testing.T, p fakeProvider, srv *providertest.Server) {
	t.Helper()
	for _, q := range fakeProviders {
		if q.keyEnv != "" {
			t.Setenv(q.keyEnv, "")
		}
		t.Setenv(q.urlEnv, "")
	}
	if p.keyEnv != "" {
		t.Setenv(p.keyEnv, askKey)
	}
	t.Setenv(p.urlEnv, srv.BaseURL(p.name))
	t.Setenv("CONVO_RETRY_BASE_DELAY", "1ms")
	t.Setenv("CONVO_RETRY_MAX_DELAY", "200ms")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// askSeed stores a system prompt and one answered turn.
func askSeed(t *testing.T, db, conv string) {
	t.Helper()
	in := `{"role":"system","content":"You are terse."}
{"role":"user","content":"Earlier question about Lisbon"}
{"role":"assistant","content":"Earlier answer about Lisbon"}
`
	if _, errOut, code := run(t, in, "--db", db, "append", "-q", "-c", conv); code != 0 {
		t.Fatalf("seed: exit %d: %s", code, errOut)
	}
}

func askArgs(p fakeProvider, db string, extra ...string) []string {
	args := []string{"--db", db, "ask", "-c", "c", "--provider", p.name}
	if p.model != "" {
		args = append(args, "--model", p.model)
	}
	return append(args, extra...)
}

func records(t *testing.T, db, conv string) []transcript.Record {
	t.Helper()
	var recs []transcript.Record
	for _, line := range strings.Split(strings.TrimSpace(dump(t, db, conv)), "\n") {
		var r transcript.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

const cityQuestion = "What is the capital of France?"

var citySchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "City",
  "type": "object",
  "properties": {"city": {"type": "string"}, "population": {"type": "integer", "minimum": 0}},
  "required": ["city", "population"],
  "additionalProperties": false
}`

var weatherTools = `[{"name":"get_weather","description":"Current weather in a city","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]`

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAskProviders drives ask through every provider's real client against
// a fake server speaking its wire format.
func TestAskProviders(t *testing.T) {
	paris := &answer{Text: "Paris is the capital of France."}
	weather := &answer{Calls: []askCall{{ID: "call_abc123", Name: "get_weather", Args: `{"location":"Paris","unit":"celsius"}`}}}
	for _, p := range fakeProviders {
		t.Run(p.name, func(t *testing.T) {
			type tc struct {
				name   string
				steps  []step
				args   []string
				stdin  string
				code   int
				stdout string // exact, when set
				stderr string // a substring, when set
				// stored: what a success (or --keep-invalid) adds.
				check func(t *testing.T, srv *providertest.Server, recs []transcript.Record, out string)
			}
			schemaFile := writeFile(t, "city.schema.json", citySchema)
			toolsFile := writeFile(t, "tools.json", weatherTools)
			cases := []tc{
				{name: "plain answer", steps: []step{{Answer: paris}}, args: []string{cityQuestion}, stdout: "Paris is the capital of France.\n",
					check: func(t *testing.T, srv *providertest.Server, recs []transcript.Record, _ string) {
						reqs := srv.Requests()
						if len(reqs) != 1 || !p.authOK(reqs[0].Header) {
							t.Fatalf("requests %d, auth headers %v", len(reqs), reqs[0].Header)
						}
						for _, want := range []string{"You are terse.", "Earlier question about Lisbon", "Earlier answer about Lisbon", cityQuestion} {
							if !strings.Contains(reqs[0].Raw, want) {
								t.Errorf("request lacks %q: %s", want, reqs[0].Raw)
							}
						}
						if reqs[0].Body["stream"] == true || strings.Contains(reqs[0].Path, "stream") {
							t.Errorf("asked for a stream: %s %s", reqs[0].Path, reqs[0].Raw)
						}
						user, ans := recs[len(recs)-2], recs[len(recs)-1]
						if user.Message.Role != "user" || user.Message.Contents[0] != cityQuestion {
							t.Fatalf("user record: %+v", user)
						}
						start, ok1 := user.Metadata.Timing.Get("llmStart")
						end, ok2 := user.Metadata.Timing.Get("llmEnd")
						if !ok1 || !ok2 || start > end || start < user.Metadata.Timing.Creation {
							t.Errorf("user timing: %+v", user.Metadata.Timing)
						}
						if ans.Message.Role != "assistant" || ans.Message.Contents[0] != paris.Text {
							t.Fatalf("answer record: %+v", ans)
						}
						for _, k := range []string{"provider", "model", "finish_reason", "usage"} {
							if _, ok := ans.Metadata.Aux[k]; !ok {
								t.Errorf("answer aux lacks %s: %s", k, mustJSON(ans.Metadata.Aux))
							}
						}
					}},
				{name: "message on stdin", steps: []step{{Answer: paris}}, args: []string{"-"}, stdin: cityQuestion + "\n", stdout: "Paris is the capital of France.\n",
					check: func(t *testing.T, _ *providertest.Server, recs []transcript.Record, _ string) {
						if got := recs[len(recs)-2].Message.Contents; !slices.Equal(got, []string{cityQuestion}) {
							t.Errorf("user contents %q", got)
						}
					}},
				{name: "tool call answer", steps: []step{{Answer: weather}}, args: []string{"--tools", toolsFile, "What is the weather in Paris?"},
					stdout: "", stderr: `get_weather {"location":"Paris","unit":"celsius"}`,
					check: func(t *testing.T, srv *providertest.Server, recs []transcript.Record, _ string) {
						ans := recs[len(recs)-1]
						if len(ans.Message.ToolCalls) != 1 || ans.Message.ToolCalls[0].Name != "get_weather" {
							t.Fatalf("answer: %s", mustJSON(ans))
						}
					}},
				{name: "tool call answer, --json", steps: []step{{Answer: weather}}, args: []string{"--tools", toolsFile, "--json", "What is the weather in Paris?"},
					check: func(t *testing.T, srv *providertest.Server, recs []transcript.Record, out string) {
						if got := p.toolsSent(srv.Requests()[0].Body); !slices.Equal(got, []string{"get_weather"}) {
							t.Errorf("tools sent: %v", got)
						}
						ans := recs[len(recs)-1]
						if len(ans.Message.ToolCalls) != 1 || ans.Message.ToolCalls[0].Name != "get_weather" ||
							ans.Message.ToolCalls[0].Arguments != `{"location":"Paris","unit":"celsius"}` {
							t.Fatalf("answer: %s", mustJSON(ans))
						}
						if !p.idless && ans.Message.ToolCalls[0].ID != "call_abc123" {
							t.Errorf("tool call id %q", ans.Message.ToolCalls[0].ID)
						}
						if !strings.Contains(out, `"tool_calls":[{"id":"`+ans.Message.ToolCalls[0].ID+`","name":"get_weather"`) {
							t.Errorf("--json output: %s", out)
						}
					}},
				{name: "structured output valid", steps: []step{{Answer: &answer{Text: `{"city":"Paris","population":2102650}`, Structured: true}}},
					args: []string{"--schema", schemaFile, cityQuestion}, stdout: `{"city":"Paris","population":2102650}` + "\n",
					check: func(t *testing.T, srv *providertest.Server, recs []transcript.Record, _ string) {
						sent := p.schemaSent(srv.Requests()[0].Body)
						if dig(sent, "title") != "City" || dig(sent, "$schema") != nil {
							t.Errorf("schema sent: %s in %s", mustJSON(sent), srv.Requests()[0].Raw)
						}
						ans := recs[len(recs)-1]
						if len(ans.Message.ToolCalls) != 0 || string(ans.Metadata.Aux["schema"]) != `"City"` {
							t.Errorf("answer: %s", mustJSON(ans))
						}
					}},
				{name: "structured output invalid", steps: []step{{Answer: &answer{Text: `{"city":"Paris","population":-3}`, Structured: true}}},
					args: []string{"--schema", schemaFile, cityQuestion}, code: 3, stderr: "/population"},
				{name: "structured output missing property", steps: []step{{Answer: &answer{Text: `{"town":"Paris"}`, Structured: true}}},
					args: []string{"--schema", schemaFile, cityQuestion}, code: 3, stderr: "missing propert"},
				{name: "structured output not JSON", steps: []step{{Answer: &answer{Text: "Paris, I think.", Structured: true}}},
					args: []string{"--schema", schemaFile, cityQuestion}, code: 3, stderr: "not JSON"},
				{name: "structured output invalid, kept", steps: []step{{Answer: &answer{Text: `{"city":"Paris","population":-3}`, Structured: true}}},
					args: []string{"--schema", schemaFile, "--keep-invalid", cityQuestion}, code: 3, stderr: "stored anyway",
					check: func(t *testing.T, _ *providertest.Server, recs []transcript.Record, _ string) {
						if got := recs[len(recs)-1].Message.Contents; !slices.Equal(got, []string{`{"city":"Paris","population":-3}`}) {
							t.Errorf("kept answer %q", got)
						}
					}},
				{name: "429 with Retry-After, then success", steps: []step{{Status: 429, Header: map[string]string{"Retry-After": "1"}, Error: "Rate limit reached for requests"}, {Answer: paris}},
					args: []string{cityQuestion}, stdout: "Paris is the capital of France.\n",
					check: func(t *testing.T, srv *providertest.Server, _ []transcript.Record, _ string) {
						reqs := srv.Requests()
						// The wait is capped at 200ms in tests; backoff alone would wait under 1ms.
						if len(reqs) != 2 || reqs[1].At.Sub(reqs[0].At) < 190*time.Millisecond {
							t.Errorf("%d requests; Retry-After not honoured: %v apart", len(reqs), reqs[len(reqs)-1].At.Sub(reqs[0].At))
						}
					}},
				{name: "persistent 500", steps: []step{{Status: 500, Error: "The server had an error while processing your request."}}, args: []string{cityQuestion}, code: 1, stderr: "after 4 attempts"},
				{name: "timeout", steps: []step{{Hang: true}}, args: []string{"--timeout", "100ms", cityQuestion}, code: 1, stderr: "no response within 100ms"},
				{name: "streaming", steps: []step{{Answer: paris}}, args: []string{"--stream", cityQuestion}, stdout: "Paris is the capital of France.\n",
					check: func(t *testing.T, srv *providertest.Server, recs []transcript.Record, _ string) {
						req := srv.Requests()[0]
						if req.Body["stream"] != true && !strings.Contains(req.Path, ":streamGenerateContent") {
							t.Errorf("no stream asked: %s %s", req.Path, req.Raw)
						}
					}},
				{name: "streaming a tool call", steps: []step{{Answer: weather}}, args: []string{"--stream", "--tools", toolsFile, "Weather?"}, stdout: "",
					check: func(t *testing.T, _ *providertest.Server, recs []transcript.Record, _ string) {
						ans := recs[len(recs)-1]
						if len(ans.Message.ToolCalls) != 1 || ans.Message.ToolCalls[0].Arguments != `{"location":"Paris","unit":"celsius"}` {
							t.Errorf("answer %s", mustJSON(ans))
						}
					}},
			}
			for _, reason := range p.cut {
				cases = append(cases, tc{name: "incomplete " + reason, steps: []step{{Answer: &answer{Text: "Paris is the cap", Finish: reason}}},
					args: []string{cityQuestion}, code: 1, stderr: "finish reason " + reason})
			}
			if p.name == "openai" {
				cases = append(cases, tc{name: "refusal", steps: []step{{Answer: &answer{Refusal: "I'm sorry, I cannot help with that."}}},
					args: []string{"--schema", schemaFile, cityQuestion}, code: 1, stderr: "finish reason refusal"})
			}
			if p.name == "gemini" {
				cases = append(cases, tc{name: "prompt blocked", steps: []step{{Answer: &answer{Blocked: "SAFETY"}}},
					args: []string{cityQuestion}, code: 1, stderr: "blockReason SAFETY"})
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					srv := newAskServer(t, p, c.steps...)
					askEnv(t, p, srv)
					db := filepath.Join(t.TempDir(), "convo.db")
					askSeed(t, db, "c")
					before := dump(t, db, "c")
					out, errOut, code := run(t, c.stdin, askArgs(p, db, c.args...)...)
					if code != c.code {
						t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, errOut)
					}
					if strings.Contains(out+errOut, askKey) {
						t.Fatalf("the key leaked: %s %s", out, errOut)
					}
					if c.stdout != "" || c.code == 0 && !strings.Contains(strings.Join(c.args, " "), "--json") {
						if out != c.stdout {
							t.Errorf("stdout %q, want %q", out, c.stdout)
						}
					}
					if !strings.Contains(errOut, c.stderr) {
						t.Errorf("stderr %q lacks %q", errOut, c.stderr)
					}
					after := dump(t, db, "c")
					if strings.Contains(after, askKey) {
						t.Fatal("the key was stored")
					}
					if c.check == nil {
						if after != before {
							t.Fatalf("a failed ask changed the store:\n%s", after)
						}
						return
					}
					recs := records(t, db, "c")
					if len(recs) != 5 {
						t.Fatalf("want 5 records (system, 2 seeded, user, answer), got %d:\n%s", len(recs), after)
					}
					c.check(t, srv, recs, out)
				})
			}
		})
	}
}

// TestAskStreamStoresTheSame: the record stored after a streamed answer is
// the record stored after the same answer unstreamed.
func TestAskStreamStoresTheSame(t *testing.T) {
	answers := []answer{
		{Text: "Paris is the capital of France."},
		{Text: "Let me check.", Calls: []askCall{{ID: "call_1", Name: "get_weather", Args: `{"location":"Paris","unit":"celsius"}`}, {ID: "call_2", Name: "get_time", Args: `{"zone":"Europe/Paris"}`}}},
	}
	for _, p := range fakeProviders {
		for i, a := range answers {
			t.Run(fmt.Sprintf("%s/%d", p.name, i), func(t *testing.T) {
				var got [2]transcript.Record
				for j, stream := range []bool{false, true} {
					srv := newAskServer(t, p, step{Answer: &a})
					askEnv(t, p, srv)
					db := filepath.Join(t.TempDir(), "convo.db")
					args := []string{"--json", "Question"}
					if stream {
						args = append(args, "--stream")
					}
					out, errOut, code := run(t, "", askArgs(p, db, args...)...)
					if code != 0 {
						t.Fatalf("exit %d: %s", code, errOut)
					}
					if stream && !strings.HasPrefix(errOut, a.Text) {
						t.Errorf("--stream --json: the text goes to stderr, got %q", errOut)
					}
					if err := json.Unmarshal([]byte(out), &got[j]); err != nil {
						t.Fatalf("%v: %s", err, out)
					}
					r := &got[j]
					r.ID, r.Metadata.Timing = "", transcript.Timing{}
					if p.idless {
						for k := range r.Message.ToolCalls {
							r.Message.ToolCalls[k].ID = ""
						}
					}
				}
				if !reflect.DeepEqual(got[0], got[1]) {
					t.Errorf("stored differently when streamed:\nplain  %s\nstream %s", mustJSON(got[0]), mustJSON(got[1]))
				}
			})
		}
	}
}

// TestAskKeepRaw: raw response bodies land in DIR/<conversation>/, one per
// call, and never hold the key, even when the provider echoes it.
func TestAskKeepRaw(t *testing.T) {
	for _, p := range fakeProviders {
		t.Run(p.name, func(t *testing.T) {
			echo := &answer{Text: "Your key is " + askKey + ", isn't it?"}
			if p.keyEnv == "" { // ollama takes no key: there is none to leak
				echo = &answer{Text: "Hello."}
			}
			srv := newAskServer(t, p, step{Answer: echo})
			askEnv(t, p, srv)
			db := filepath.Join(t.TempDir(), "convo.db")
			dir := t.TempDir()
			for _, args := range [][]string{{"--keep-raw", dir, "one"}, {"--keep-raw", dir, "--stream", "two"}, {"--keep-raw", dir, "--agent", "tester", "three"}} {
				out, errOut, code := run(t, "", askArgs(p, db, args...)...)
				if code != 0 || strings.Contains(out+errOut, askKey) {
					t.Fatalf("exit %d: %s %s", code, out, errOut)
				}
			}
			files, _ := filepath.Glob(filepath.Join(dir, "c", "*.json"))
			if len(files) != 3 {
				t.Fatalf("raw files: %v", files)
			}
			agents := 0
			model := p.model
			if model == "" {
				model = map[string]string{"openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5", "gemini": "gemini-2.5-flash"}[p.name]
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(b, []byte(askKey)) {
					t.Fatalf("%s holds the key", f)
				}
				if !json.Valid(b) || p.keyEnv != "" && !bytes.Contains(b, []byte("[REDACTED]")) {
					t.Errorf("%s: %s", f, b)
				}
				base := filepath.Base(f)
				switch {
				case strings.HasPrefix(base, p.name+"-"+model+"_"):
					agents++
				case strings.HasPrefix(base, "tester_"):
				default:
					t.Errorf("raw file name %s", base)
				}
			}
			if agents != 2 {
				t.Errorf("files named after provider and model: %d of 3", agents)
			}
			if strings.Contains(dump(t, db, "c"), askKey) {
				t.Fatal("the key was stored")
			}
		})
	}
}

// TestAskStoredSchema: --set-schema makes every later ask structured,
// --schema overrides it for one call, --no-schema skips it, and clear
// removes it with the conversation.
func TestAskStoredSchema(t *testing.T) {
	p := fakeProviders[0]
	srv := newAskServer(t, p, step{Answer: &answer{Text: "Paris."}})
	askEnv(t, p, srv)
	db := filepath.Join(t.TempDir(), "convo.db")
	schemaFile := writeFile(t, "city.schema.json", citySchema)
	if _, errOut, code := run(t, "", "--db", db, "ask", "-c", "c", "--set-schema", schemaFile); code != 0 {
		t.Fatalf("set: %d %s", code, errOut)
	}
	if _, errOut, code := run(t, "", askArgs(p, db, "Where?")...); code != 3 || !strings.Contains(errOut, "not JSON") {
		t.Fatalf("stored schema not applied: %d %s", code, errOut)
	}
	if p.schemaSent(srv.Requests()[0].Body) == nil {
		t.Fatalf("stored schema not sent: %s", srv.Requests()[0].Raw)
	}
	if out, errOut, code := run(t, "", askArgs(p, db, "--no-schema", "Where?")...); code != 0 || out != "Paris.\n" {
		t.Fatalf("--no-schema: %d %s %s", code, out, errOut)
	}
	if p.schemaSent(srv.Requests()[1].Body) != nil {
		t.Fatalf("--no-schema sent a schema: %s", srv.Requests()[1].Raw)
	}
	if _, errOut, code := run(t, "", "--db", db, "ask", "-c", "c", "--unset-schema"); code != 0 {
		t.Fatalf("unset: %d %s", code, errOut)
	}
	if out, _, code := run(t, "", askArgs(p, db, "Where?")...); code != 0 || out != "Paris.\n" {
		t.Fatalf("after --unset-schema: %d %s", code, out)
	}
	run(t, "", "--db", db, "ask", "-c", "c", "--set-schema", schemaFile)
	if _, errOut, code := run(t, "", "--db", db, "clear", "-c", "c", "--yes"); code != 0 {
		t.Fatalf("clear: %s", errOut)
	}
	if out, _, code := run(t, "", askArgs(p, db, "Where?")...); code != 0 || out != "Paris.\n" {
		t.Fatalf("schema survived clear: %d %s", code, out)
	}
}

// TestAskContinuesAfterToolResults: without a new message, ask answers the
// stored conversation, which ends with the tool results.
func TestAskContinuesAfterToolResults(t *testing.T) {
	p := fakeProviders[0]
	srv := newAskServer(t, p, step{Answer: &answer{Calls: []askCall{{ID: "call_1", Name: "get_weather", Args: `{"location":"Paris"}`}}}}, step{Answer: &answer{Text: "It is 18°C in Paris."}})
	askEnv(t, p, srv)
	db := filepath.Join(t.TempDir(), "convo.db")
	tools := writeFile(t, "tools.json", weatherTools)
	if _, errOut, code := run(t, "", askArgs(p, db, "--tools", tools, "Weather in Paris?")...); code != 0 {
		t.Fatalf("%d %s", code, errOut)
	}
	if _, _, code := run(t, "", askArgs(p, db, "--tools", tools)...); code != 2 {
		t.Fatalf("asking again with unanswered tool calls: exit %d, want 2", code)
	}
	in := `{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"{\"temp\":18}"}` + "\n"
	if _, errOut, code := run(t, in, "--db", db, "append", "-q", "-c", "c"); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := run(t, "", askArgs(p, db, "--tools", tools)...)
	if code != 0 || out != "It is 18°C in Paris.\n" {
		t.Fatalf("%d %q %s", code, out, errOut)
	}
	req := srv.Requests()[1].Raw
	if !strings.Contains(req, `"tool_call_id":"call_1"`) || !strings.Contains(req, `"tool_calls":[{"id":"call_1"`) {
		t.Errorf("history without the call and its result: %s", req)
	}
	recs := records(t, db, "c")
	last := recs[len(recs)-1]
	if len(recs) != 4 || last.Message.Role != "assistant" || last.Metadata.Timing.LLMStart == nil {
		t.Errorf("records: %s", dump(t, db, "c"))
	}
}

// TestAskRateConcurrentProcesses: 20 asks from 4 processes at --rate 10/1s
// are spaced 100ms apart through the store: about 2s in all, and none fails.
// (Named for make test's second pass: a wall-clock test runs without -race.)
func TestAskRateConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 20 processes and measures wall time")
	}
	p := fakeProviders[0]
	srv := newAskServer(t, p, step{Answer: &answer{Text: "ok"}})
	db := filepath.Join(t.TempDir(), "convo.db")
	env := append(os.Environ(), "CONVO_DB="+db, "XDG_CONFIG_HOME="+t.TempDir(),
		"OPENAI_API_KEY="+askKey, "OPENAI_BASE_URL="+srv.BaseURL("openai"))
	const procs, each = 4, 5
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				c := exec.Command("convo", "ask", "-c", "shared", "--provider", "openai", "--rate", "10/1s", fmt.Sprintf("p%d-q%d", i, j))
				c.Env = env
				if out, err := c.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("process %d ask %d: %v: %s", i, j, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	elapsed := time.Since(start)
	reqs := srv.Requests()
	if len(reqs) != procs*each {
		t.Fatalf("%d requests, want %d", len(reqs), procs*each)
	}
	span := reqs[len(reqs)-1].At.Sub(reqs[0].At)
	t.Logf("20 asks in %v, requests spread over %v", elapsed, span)
	if elapsed < 1500*time.Millisecond || elapsed > 6*time.Second || span < 1500*time.Millisecond {
		t.Errorf("took %v (requests over %v), want about 2s", elapsed, span)
	}
	if n := len(records(t, db, "shared")); n != 2*procs*each {
		t.Errorf("%d records stored, want %d", n, 2*procs*each)
	}
}

// TestAskScript runs the ask scripts: testdata/script/ask*.txtar (no
// server; TestScript runs them too) and testdata/ask/*.txtar, which get a
// fake provider playing the responses the script writes (see fakeFromFiles).
func TestAskScript(t *testing.T) {
	files, _ := filepath.Glob("testdata/script/ask*.txtar")
	setup := func(env *testscript.Env) error {
		env.Setenv("CONVO_DB", env.WorkDir+"/convo.db")
		env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
		env.Setenv("XDG_DATA_HOME", env.WorkDir+"/.local/share")
		env.Setenv("CONVO_RETRY_BASE_DELAY", "1ms")
		env.Setenv("CONVO_RETRY_MAX_DELAY", "50ms")
		return nil
	}
	t.Run("script", func(t *testing.T) {
		if testing.Short() {
			t.Skip("TestScript runs testdata/script/ask*.txtar too")
		}
		testscript.Run(t, testscript.Params{Files: files, RequireExplicitExec: true, Setup: setup, UpdateScripts: *update})
	})
	t.Run("fake", func(t *testing.T) {
		testscript.Run(t, testscript.Params{
			Dir: "testdata/ask", RequireExplicitExec: true, UpdateScripts: *update,
			Setup: func(env *testscript.Env) error {
				if err := setup(env); err != nil {
					return err
				}
				srv := providertest.Start(providertest.Options{Next: fakeFromFiles(env.WorkDir), Key: askKey})
				env.Defer(srv.Close)
				env.Setenv("OPENAI_BASE_URL", srv.BaseURL("openai"))
				env.Setenv("ANTHROPIC_BASE_URL", srv.BaseURL("anthropic"))
				env.Setenv("GOOGLE_GEMINI_BASE_URL", srv.BaseURL("gemini"))
				env.Setenv("OLLAMA_HOST", srv.BaseURL("ollama"))
				env.Setenv("OPENAI_API_KEY", askKey)
				env.Setenv("ANTHROPIC_API_KEY", askKey)
				env.Setenv("GEMINI_API_KEY", askKey)
				env.Setenv("TEST_KEY", askKey)
				return nil
			},
		})
	})
}

// fakeFromFiles answers each request with the oldest file of
// $WORK/fake/queue (deleting it), or $WORK/fake/reply when the queue is
// empty. A file holds the status code on its first line, header lines, a
// blank line, then the body. Each request body is saved as
// $WORK/fake/request.json, and its path in $WORK/fake/request.path.
func fakeFromFiles(dir string) func(int, *providertest.Request) providertest.Step {
	var mu sync.Mutex
	return func(_ int, r *providertest.Request) providertest.Step {
		mu.Lock()
		defer mu.Unlock()
		fake := filepath.Join(dir, "fake")
		_ = os.WriteFile(filepath.Join(fake, "request.json"), []byte(r.Raw), 0o644)
		_ = os.WriteFile(filepath.Join(fake, "request.path"), []byte(r.Path+"\n"), 0o644)
		name := filepath.Join(fake, "reply")
		queued, _ := filepath.Glob(filepath.Join(fake, "queue", "[^.]*"))
		if len(queued) > 0 {
			slices.Sort(queued)
			name = queued[0]
			defer os.Remove(name)
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return providertest.Step{Status: http.StatusTeapot, Body: err.Error()}
		}
		head, payload, _ := strings.Cut(string(data), "\n\n")
		lines := strings.Split(head, "\n")
		st := providertest.Step{Body: payload, Header: map[string]string{}}
		fmt.Sscan(lines[0], &st.Status)
		for _, l := range lines[1:] {
			if k, v, ok := strings.Cut(l, ":"); ok {
				st.Header[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
		return st
	}
}
