package ask

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/store/sqlite"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/transcript"
)

// testKey is the API key the tests send: it must never appear in errors,
// stored records or raw files.
const testKey = "sk-ask-test-KEY-5f2e9c01"

// provider is one callable provider as the tests see it; the shared fake
// server (internal/providertest) speaks its wire format.
type provider struct {
	name, model string
	cut         []string // finish reasons that mean incomplete or refused
	// idless: the provider gives tool calls no id (ask makes them up).
	idless bool
	// authOK checks the request's authentication headers, as the fake
	// recorded them (the key as [KEY]).
	authOK func(h http.Header) bool
	// schemaSent finds the answer schema in a request body.
	schemaSent func(body map[string]any) any
	// toolsSent finds the tool names in a request body.
	toolsSent func(body map[string]any) []string
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

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// names lists fmt.Sprint(dig(t, path...)) for each t of list.
func names(list any, path ...string) []string {
	var out []string
	items, _ := list.([]any)
	for _, t := range items {
		out = append(out, fmt.Sprint(dig(t, path...)))
	}
	return out
}

var providers = []provider{
	{
		name:   "openai",
		cut:    []string{"length", "content_filter"},
		authOK: func(h http.Header) bool { return h.Get("Authorization") == "Bearer [KEY]" },
		schemaSent: func(b map[string]any) any {
			if dig(b, "response_format", "type") != "json_schema" {
				return nil
			}
			return dig(b, "response_format", "json_schema", "schema")
		},
		toolsSent: func(b map[string]any) []string { return names(b["tools"], "function", "name") },
	},
	{
		name: "anthropic",
		cut:  []string{"max_tokens", "refusal", "pause_turn", "model_context_window_exceeded"},
		authOK: func(h http.Header) bool {
			return h.Get("x-api-key") == "[KEY]" && h.Get("anthropic-version") == "2023-06-01" && h.Get("Authorization") == ""
		},
		schemaSent: func(b map[string]any) any {
			if dig(b, "tool_choice", "name") != format.AnswerTool {
				return nil
			}
			tools, _ := b["tools"].([]any)
			for _, t := range tools {
				if dig(t, "name") == format.AnswerTool {
					return dig(t, "input_schema")
				}
			}
			return nil
		},
		toolsSent: func(b map[string]any) []string { return names(b["tools"], "name") },
	},
	{
		name: "gemini", idless: true,
		cut:    []string{"MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "OTHER"},
		authOK: func(h http.Header) bool { return h.Get("x-goog-api-key") == "[KEY]" },
		schemaSent: func(b map[string]any) any {
			if dig(b, "generationConfig", "responseMimeType") != "application/json" {
				return nil
			}
			return dig(b, "generationConfig", "responseJsonSchema")
		},
		toolsSent: func(b map[string]any) []string {
			var out []string
			tools, _ := b["tools"].([]any)
			for _, t := range tools {
				out = append(out, names(dig(t, "functionDeclarations"), "name")...)
			}
			return out
		},
	},
	{
		name: "ollama", model: "llama3.2", idless: true,
		cut:        []string{"length"},
		authOK:     func(h http.Header) bool { return h.Get("Authorization") == "" },
		schemaSent: func(b map[string]any) any { return b["format"] },
		toolsSent:  func(b map[string]any) []string { return names(b["tools"], "function", "name") },
	},
	{
		name:   "openai-responses",
		cut:    []string{"max_output_tokens", "content_filter"},
		authOK: func(h http.Header) bool { return h.Get("Authorization") == "Bearer [KEY]" },
		schemaSent: func(b map[string]any) any {
			if dig(b, "text", "format", "type") != "json_schema" {
				return nil
			}
			return dig(b, "text", "format", "schema")
		},
		toolsSent: func(b map[string]any) []string { return names(b["tools"], "name") },
	},
}

// model is the model a turn to p names: the registry's default unless p
// needs one named.
func (p provider) modelName() string {
	if p.model != "" {
		return p.model
	}
	reg, _ := format.Lookup(p.name)
	return reg.DefaultModel
}

// env is one test's world: a real SQLite store, the fake provider and the
// provider's real transport, with retry delays recorded instead of waited.
type env struct {
	t      *testing.T
	p      provider
	s      *sqlstore.Store
	srv    *providertest.Server
	tr     llm.Transport
	asker  *Asker
	mu     sync.Mutex
	delays []time.Duration // the retry waits the transport asked for
}

// newEnv starts the fake playing steps (the last one again and again);
// opts shapes the transport (a zero Timeout takes 5s).
func newEnv(t *testing.T, p provider, opts llm.Options, steps ...providertest.Step) *env {
	t.Helper()
	e := &env{t: t, p: p}
	key := ""
	if reg, _ := format.Lookup(p.name); reg.KeyEnv != "" {
		key = testKey
	}
	e.srv = providertest.Start(providertest.Options{Steps: steps, Key: key})
	t.Cleanup(e.srv.Close)
	var err error
	if e.s, err = sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "convo.db")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.s.Close() })
	opts.APIKey, opts.BaseURL, opts.Limit = key, e.srv.BaseURL(p.name), Limit
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	opts.Retry = llm.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 200 * time.Millisecond}
	opts.Sleep = func(ctx context.Context, d time.Duration) error {
		e.mu.Lock()
		e.delays = append(e.delays, d)
		e.mu.Unlock()
		return ctx.Err()
	}
	if e.tr, err = llm.New(p.name, opts); err != nil {
		t.Fatal(err)
	}
	e.asker = &Asker{IDs: transcript.NewIDs(), Now: time.Now}
	return e
}

// turn is a turn to e's provider in conversation "c" asking contents.
func (e *env) turn(contents ...string) Turn {
	return Turn{Conversation: "c", Contents: contents, Request: format.Request{Provider: e.p.name, Model: e.p.modelName()}}
}

func (e *env) run(t Turn) (Result, error) {
	return e.asker.Run(context.Background(), e.s, e.tr, t)
}

// seed stores a system prompt and one answered turn in conversation c.
func (e *env) seed() {
	e.t.Helper()
	e.appendJSONL(`{"role":"system","content":"You are terse."}
{"role":"user","content":"Earlier question about Lisbon"}
{"role":"assistant","content":"Earlier answer about Lisbon"}
`)
}

// appendJSONL appends the records or messages of jsonl to conversation c.
func (e *env) appendJSONL(jsonl string) {
	e.t.Helper()
	dec := transcript.NewDecoder(strings.NewReader(jsonl))
	_, err := e.s.Append(context.Background(), "c", e.asker.IDs, dec.Stream())
	if err != nil {
		e.t.Fatal(err)
	}
}

// dump is conversation c as stored, one canonical record a line.
func (e *env) dump() string {
	e.t.Helper()
	var b bytes.Buffer
	err := e.s.Read(context.Background(), "c", store.ReadOptions{}, func(r store.Row) error {
		b.Write(r.Body)
		b.WriteByte('\n')
		return nil
	})
	if err != nil && !strings.Contains(err.Error(), "not found") {
		e.t.Fatal(err)
	}
	return b.String()
}

// records is conversation c as stored.
func (e *env) records() []transcript.Record {
	e.t.Helper()
	var recs []transcript.Record
	dec := json.NewDecoder(strings.NewReader(e.dump()))
	for {
		var r transcript.Record
		if err := dec.Decode(&r); err == io.EOF {
			return recs
		} else if err != nil {
			e.t.Fatal(err)
		}
		recs = append(recs, r)
	}
}

const cityQuestion = "What is the capital of France?"

const citySchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "City",
  "type": "object",
  "properties": {"city": {"type": "string"}, "population": {"type": "integer", "minimum": 0}},
  "required": ["city", "population"],
  "additionalProperties": false
}`

var weatherTools = []format.Tool{{Name: "get_weather", Description: "Current weather in a city",
	Parameters: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)}}

func mustSchema(t *testing.T, name, body string) *Schema {
	t.Helper()
	sch, err := NewSchema(name, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
