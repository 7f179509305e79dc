package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// MaxResponseBytes bounds a response body: far above any real answer, low
// enough that a wrong pipe fails fast.
const MaxResponseBytes = 64 << 20

// Answer is what a provider's response body says, read by ParseResponse for
// every caller alike (append --from, ask, summarize).
type Answer struct {
	// Record is the assistant record: contents, tool calls, and under aux
	// the provider, model, response id, finish reason and usage as the
	// provider gave them. Id, conversation and timing are left for the
	// caller.
	Record transcript.Record
	// Model is the model that answered, as the provider names it.
	Model      string
	ResponseID string
	// FinishReason is the provider's own value (stop, end_turn, STOP...).
	FinishReason string
	Usage        Usage
	// Refusal is the text of a refusal (openai's message.refusal).
	Refusal string
	// Incomplete: cut short, refused, blocked or empty (see IncompleteError).
	Incomplete bool
	// Created is when the provider made the answer, as its body says
	// (openai's created, openai-responses' created_at, ollama's
	// created_at, gemini's createTime); zero when it does not.
	Created time.Time
	// Compaction is the provider's compaction the body holds, nil for
	// none (compaction.go). With Compaction.Alone, Record is no answer.
	Compaction *Compaction
}

// Text is the answer's text: its content strings are pieces of one text
// (text parts, text blocks), joined as they came.
func (a *Answer) Text() string { return strings.Join(a.Record.Message.Contents, "") }

// Usage counts tokens as the provider reported them (zero when it did not);
// Raw is its usage object as sent.
type Usage struct {
	InputTokens, OutputTokens int
	Raw                       json.RawMessage
}

// answer is what a provider's parser finds in a response body.
type answer struct {
	texts []string
	// calls keep "" for an id the provider did not give.
	calls      []transcript.ToolCall
	model      string
	responseID string
	finish     string
	cut        bool   // finish means the answer was cut short or refused
	refusal    string // the text of a refusal
	blocked    string // the reason a prompt was blocked before any answer
	usage      json.RawMessage
	in, out    int
	// kept is the provider data found (see providerdata.go).
	kept []keptItem
	// created is when the provider made the answer, zero when unknown.
	created time.Time
	// compaction holds a provider compaction's items, compactionText its
	// readable summary (compaction.go); compactionAlone: the body holds no
	// answer besides.
	compaction      []json.RawMessage
	compactionText  string
	compactionAlone bool
}

// answerPlace says, for each provider, where a body holds its answer: what
// is missing from a body that holds none.
var answerPlace = map[string]string{
	"openai":        "text or tool call in choices[0].message (content, tool_calls)",
	openaiResponses: `"output_text" or "function_call" item in output`,
	"anthropic":     `"text" or "tool_use" block in content`,
	"gemini":        "text or functionCall part in candidates[0].content.parts",
	"bedrock":       "text or toolUse block in output.message.content",
	"ollama":        "text or tool call in message (content, tool_calls)",
}

// ParseResponse reads one non-streaming response body of provider (a
// streamed answer comes assembled into one by pkg/llm). newID names tool
// calls the provider left without an id (gemini, ollama); nil names them
// call_1, call_2...
//
// Errors: *UnknownError for a provider whose responses are not read,
// *transcript.InputError when the body is not one JSON object of the
// provider's response shape, *ProviderError for an error body, and
// *IncompleteError, with the Answer, when the answer is incomplete.
func ParseResponse(provider string, body []byte, newID func() string) (*Answer, error) {
	p, err := lookup(provider, CanParse)
	if err != nil {
		return nil, err
	}
	if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' {
		return nil, shapeError(provider, "not a JSON object: %.40q", b)
	}
	if !utf8.Valid(body) {
		// encoding/json would quietly turn the bad bytes into U+FFFD.
		return nil, shapeError(provider, "invalid UTF-8 at byte %d", transcript.InvalidUTF8At(body)+1)
	}
	a, err := p.parse(body)
	if err != nil {
		return nil, err
	}
	if newID == nil {
		n := 0
		newID = func() string { n++; return "call_" + strconv.Itoa(n) }
	}
	for i := range a.calls {
		if a.calls[i].ID == "" { // the record needs one to match results
			a.calls[i].ID = newID()
		}
		if strings.Trim(a.calls[i].Arguments, " \t\r\n") == "" {
			// A call without arguments, sent as "" by some servers: {}
			// says the same, and every provider takes it back.
			a.calls[i].Arguments = "{}"
		}
	}
	if a.refusal != "" {
		// A refusal ends with a normal finish reason (stop, completed):
		// the record says what it is.
		a.finish = "refusal"
	}
	rec := a.record(provider)
	empty := len(rec.Message.Contents) == 0 && len(rec.Message.ToolCalls) == 0
	if empty {
		// A stored record needs a content string; an empty one says that
		// nothing came.
		rec.Message.Contents = []string{""}
	}
	rec.Message.ProviderData = a.providerData(provider, len(rec.Message.Contents))
	if err := transcript.Validate(&rec); err != nil {
		// e.g. a tool call without a name, or a NUL in the text
		return nil, shapeError(provider, "%v", err)
	}
	ans := &Answer{Record: rec, Model: a.model, ResponseID: a.responseID, FinishReason: a.finish,
		Usage: Usage{InputTokens: a.in, OutputTokens: a.out, Raw: a.usage}, Refusal: a.refusal, Created: a.created,
		Compaction: a.compactionOf()}
	if c := ans.Compaction; c != nil && (empty || a.compactionAlone) && !a.cut && a.refusal == "" {
		// The compaction alone (on-demand, /responses/compact): whole, with
		// no answer to store.
		c.Alone = true
		return ans, nil
	}
	inc := &IncompleteError{Provider: provider, Reason: a.finish, Answer: ans}
	if empty {
		inc.Empty = "no " + answerPlace[provider]
	}
	if !empty && !a.cut && a.blocked == "" && a.refusal == "" {
		// A whole answer: its calls must be ones every provider takes
		// back. (A cut one's arguments may be cut too: the caller that
		// keeps it anyway checks them.)
		if err := transcript.CheckCalls(&rec); err != nil {
			return nil, shapeError(provider, "%v", err)
		}
	}
	switch {
	case a.blocked != "":
		inc.Reason = "blockReason " + a.blocked
		inc.detail = "prompt blocked (" + inc.Reason + ")"
	case a.refusal != "":
		inc.Reason = "refusal"
		inc.detail = fmt.Sprintf("finish reason refusal (%q)", abbreviate(a.refusal, 200))
	case a.cut:
	case empty:
		inc.Reason = a.finish + ", with no text and no tool call"
	default:
		return ans, nil
	}
	ans.Incomplete = true
	return ans, inc
}

// ParseReply is ParseResponse for the body a provider sent back to a call
// (ask, summarize): a body that is not the provider's response is then the
// provider's failure, not bad input, and so is an error body; both come as
// a *ProviderError with the 200 status they came with.
func ParseReply(provider string, body []byte, newID func() string) (*Answer, error) {
	ans, err := ParseResponse(provider, body, newID)
	var ie *transcript.InputError
	var pe *ProviderError
	switch {
	case errors.As(err, &ie):
		// The message only: an *InputError kept inside would still read as
		// bad input.
		return nil, &ProviderError{Provider: provider, Status: 200, Message: "unexpected response body: " + err.Error()}
	case errors.As(err, &pe):
		pe.Status = 200
	}
	return ans, err
}

// ReadResponse reads one response body from r (append --from's stdin):
// exactly one JSON object, at most MaxResponseBytes. Errors are
// *transcript.InputError.
func ReadResponse(r io.Reader) ([]byte, error) {
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
	rec.Metadata.Aux = aux
	return rec
}

func quote(s string) json.RawMessage { return transcript.AppendString(nil, s) }

// shapeError says a body is not the provider's response.
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

// errorBody returns the *ProviderError of an error body, nil for another.
func errorBody(provider string, body []byte) error {
	if msg, ok := ErrorMessage(body); ok {
		return &ProviderError{Provider: provider, Message: msg}
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

// createdAt reads a body's creation time: seconds since the epoch
// (openai's created, openai-responses' created_at) or RFC 3339 text
// (ollama's created_at, gemini's createTime). Anything else, or no time an
// answer may have, is the zero time: the caller takes now.
func createdAt(raw json.RawMessage) time.Time {
	var t time.Time
	var sec float64
	var text string
	switch {
	case json.Unmarshal(raw, &sec) == nil:
		if sec > 0 && sec < 1e11 { // before the year 5000
			t = time.UnixMilli(int64(sec * 1000))
		}
	case json.Unmarshal(raw, &text) == nil:
		if p, err := time.Parse(time.RFC3339Nano, text); err == nil && p.Unix() > 0 && p.Year() < 5000 {
			t = p
		}
	}
	return t
}

// abbreviate cuts s to n bytes on a rune boundary, with "..." when cut.
func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "..."
}
