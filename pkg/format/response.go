package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// ResponseProviders lists the providers whose response bodies ParseResponse
// reads (vercel's SDK returns no wire body of its own).
var ResponseProviders = []string{"openai", "anthropic", "gemini", "bedrock", "ollama"}

// MaxResponseBytes bounds a response body: far above any real answer, low
// enough that a wrong pipe fails fast.
const MaxResponseBytes = 64 << 20

// ProviderError is an error body: the request failed and the provider said why.
type ProviderError struct {
	Provider string
	Message  string
}

func (e *ProviderError) Error() string { return e.Provider + " error: " + e.Message }

// IncompleteError says the answer was cut short (output limit, safety
// filter...). Record holds what did arrive, for a caller that keeps it anyway.
type IncompleteError struct {
	Provider string
	Reason   string // the provider's finish reason
	Record   transcript.Record
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("%s answer is incomplete (finish reason %s)", e.Provider, e.Reason)
}

// answer is what a provider parser finds in a response body.
type answer struct {
	texts      []string
	calls      []transcript.ToolCall
	model      string
	responseID string
	finish     string
	cut        bool // finish means the answer was cut short
	usage      json.RawMessage
	// signatures maps call ids to Gemini thought signatures.
	signatures map[string]string
}

// ParseResponse reads one non-streaming response body of provider from r and
// returns the assistant record it holds: contents, tool calls, and under aux
// the provider, model, response id, finish reason and usage as the provider
// gave them. Id, conversation and timing are left for the caller. newID names
// tool calls the provider left without an id (gemini, ollama).
//
// Errors: *transcript.InputError when the body is not one JSON value of the
// provider's response shape, *ProviderError for an error body, and
// *IncompleteError (with the record) when the answer was cut short.
func ParseResponse(provider string, r io.Reader, newID func() string) (transcript.Record, error) {
	parse, ok := map[string]func([]byte, func() string) (*answer, error){
		"openai": parseOpenAI, "anthropic": parseAnthropic, "gemini": parseGemini,
		"bedrock": parseBedrock, "ollama": parseOllama,
	}[provider]
	if !ok {
		return transcript.Record{}, fmt.Errorf("unknown response format %q (want one of %s)", provider, strings.Join(ResponseProviders, ", "))
	}
	body, err := readBody(r)
	if err != nil {
		return transcript.Record{}, err
	}
	a, err := parse(body, newID)
	if err != nil {
		return transcript.Record{}, err
	}
	for i := range a.calls {
		if a.calls[i].ID == "" { // the record needs one to match results
			a.calls[i].ID = newID()
		}
	}
	rec := a.record(provider)
	empty := len(rec.Message.Contents) == 0 && len(rec.Message.ToolCalls) == 0
	if empty {
		// A stored record needs a content string; an empty one says that
		// nothing came.
		rec.Message.Contents = []string{""}
	}
	if err := transcript.Validate(&rec); err != nil {
		// e.g. a tool call without a name, or a NUL in the text
		return transcript.Record{}, shapeError(provider, "%v", err)
	}
	switch {
	case a.cut:
		return rec, &IncompleteError{Provider: provider, Reason: a.finish, Record: rec}
	case empty:
		return rec, &IncompleteError{Provider: provider, Reason: a.finish + ", with no text and no tool call", Record: rec}
	}
	return rec, nil
}

// readBody reads exactly one JSON value.
func readBody(r io.Reader) ([]byte, error) {
	dec := json.NewDecoder(io.LimitReader(r, MaxResponseBytes))
	var body json.RawMessage
	if err := dec.Decode(&body); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &transcript.InputError{Err: errors.New("no response body on stdin")}
		}
		return nil, &transcript.InputError{Err: fmt.Errorf("response body is not JSON: %w", err)}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &transcript.InputError{Err: errors.New("more than one JSON value on stdin: a streamed response? ask for a non-streaming one")}
	}
	if len(body) == 0 || body[0] != '{' {
		return nil, &transcript.InputError{Err: fmt.Errorf("response body is not a JSON object: %.40s", body)}
	}
	return body, nil
}

func (a *answer) record(provider string) transcript.Record {
	rec := transcript.Record{Message: transcript.Message{
		Role: transcript.RoleAssistant, Contents: a.texts, ToolCalls: a.calls,
	}}
	if rec.Message.Contents == nil {
		rec.Message.Contents = []string{}
	}
	aux := map[string]json.RawMessage{"provider": quote(provider)}
	if a.model != "" {
		aux["model"] = quote(a.model)
	}
	if a.responseID != "" {
		aux["response_id"] = quote(a.responseID)
	}
	if a.finish != "" {
		aux["finish_reason"] = quote(a.finish)
	}
	if u, err := transcript.CompactJSON(a.usage); err == nil && len(a.usage) > 0 && string(u) != "null" {
		aux["usage"] = u
	}
	if len(a.signatures) > 0 {
		b, _ := json.Marshal(a.signatures)
		aux[thoughtSignaturesKey] = b
	}
	rec.Metadata.Aux = aux
	return rec
}

func quote(s string) json.RawMessage { return transcript.AppendString(nil, s) }

// shapeError says a body is JSON but not the provider's response.
func shapeError(provider, format string, args ...any) error {
	return &transcript.InputError{Err: fmt.Errorf("not a %s response body: %s", provider, fmt.Sprintf(format, args...))}
}

// unmarshal decodes body into v, as an input error naming the provider.
func unmarshal(provider string, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return shapeError(provider, "%v", err)
	}
	return nil
}

// compactArgs returns an arguments object as a compact JSON text; absent
// arguments are {}.
func compactArgs(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	c, err := transcript.CompactJSON(raw)
	if err != nil {
		return string(raw)
	}
	return string(c)
}

// errorMessage reads the usual {"error":{"message":...}} or {"error":"..."}
// error body; ok is false when body holds no error.
func errorMessage(body []byte) (msg string, ok bool) {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Error) == 0 || string(e.Error) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return s, true
	}
	var obj struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Status  string `json:"status"`
		Code    any    `json:"code"`
	}
	_ = json.Unmarshal(e.Error, &obj)
	kind := obj.Type
	if kind == "" {
		kind = obj.Status
	}
	switch {
	case obj.Message != "" && kind != "":
		return kind + ": " + obj.Message, true
	case obj.Message != "":
		return obj.Message, true
	}
	return string(e.Error), true
}
