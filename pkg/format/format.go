// Package format owns every byte of every provider's JSON: the registry of
// providers (registry.go), the request body each one takes, rendered from a
// neutral Request in one pass (request.go), and the response body each one
// returns, parsed into one Answer (response.go). It is a pure transform: no
// SDK, no network, no store. pkg/llm carries the bodies; it never builds or
// reads one.
//
// Every provider goes through one neutral model: strictly alternating user
// and assistant turns, the user first, where a user turn carries the tool
// results answering the assistant turn before it (results first, then any
// user text) and an assistant turn carries text and tool calls. Each
// provider's file turns that model into its wire format (request, tools,
// answer schema) and holds its response parser and finish-reason table; see
// the comment at the top of each file for the documentation it follows.
//
// Content strings: a provider whose messages take a list of parts gets one
// text part per content string (anthropic, gemini, bedrock, vercel); one that
// takes a single string gets them joined with a blank line (openai, ollama,
// vercel-legacy, and every system prompt that is one string). Empty and
// blank-only strings are left out: several providers reject empty text.
package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// SummaryHeading introduces the summary in the system prompt. The summary
// travels with the system prompt, never as a message, so no provider's
// alternation rule can break.
const SummaryHeading = "Summary of the earlier conversation (the messages that follow continue from it):"

// Turn is one message of the neutral model.
type Turn struct {
	Role transcript.Role // RoleUser or RoleAssistant
	// ID is the id of the record the turn's text came from (its first),
	// for a format whose messages carry one (vercel-legacy).
	ID      string
	Texts   []string
	Calls   []Call   // assistant turns only
	Results []Result // user turns only: answers to the previous turn's calls
	// Items are the provider data of an assistant turn for the provider
	// rendered, in their places (see providerdata.go).
	Items []opaque
	// lead: the turn opens with a compaction's items (compaction.go); it
	// is sent even with nothing else, and first, with no placeholder
	// before it.
	lead bool
}

func (t *Turn) empty() bool { return !t.lead && len(t.Texts)+len(t.Calls)+len(t.Results) == 0 }

// Call is one tool call of an assistant turn.
type Call struct {
	ID, Name string
	// Args is the arguments text as stored, for providers that take it as a
	// string; Input is the same as a JSON object for those that need one.
	Args  string
	Input json.RawMessage
	// Signature is Gemini's thought signature for this call, when the
	// response that made it carried one (see gemini.go).
	Signature string
}

// Result is one tool result, answering the call with CallID.
type Result struct {
	// ID is the tool record's id.
	ID           string
	CallID, Name string
	Texts        []string
	IsError      bool
}

// Text returns the result's content strings joined by a blank line.
func (r *Result) Text() string { return strings.Join(r.Texts, "\n\n") }

// RecordError names the record a rendering failed on. It comes wrapped in a
// *transcript.InputError, so a caller that knows where the record came from
// can add the input line.
type RecordError struct {
	ID  string
	Err error
}

func (e *RecordError) Error() string { return "record " + e.ID + ": " + e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }

func inputError(id, format string, args ...any) error {
	return &transcript.InputError{Err: &RecordError{ID: id, Err: fmt.Errorf(format, args...)}}
}

// wire is one provider's request format. The renderer calls open once, then
// turn for each turn in order (alternating, user first), then close. A turn
// is reused once turn returns: a wire that keeps one must copy it. open
// writes everything before the messages: with Request.Body the settings,
// tools and answer schema, then the system prompt.
type wire interface {
	open(j *jsonWriter, r *Request, system []string)
	turn(j *jsonWriter, t *Turn)
	close(j *jsonWriter)
	// objectArgs tells whether tool call arguments must be a JSON object.
	objectArgs() bool
}

// systemParts is the system prompt's content strings and the summary
// section, the blank ones left out.
func systemParts(system []string, summary string) []string {
	parts := appendTexts(nil, system)
	if strings.TrimSpace(summary) != "" {
		parts = append(parts, SummaryHeading+"\n"+summary)
	}
	return parts
}

// appendTexts appends the content strings that carry text.
func appendTexts(dst, contents []string) []string {
	if dst == nil && !slices.ContainsFunc(contents, blank) {
		// The common case shares the record's slice; clipped, so that a
		// later append copies instead of writing into it.
		return slices.Clip(contents)
	}
	for _, c := range contents {
		if strings.TrimSpace(c) != "" {
			dst = append(dst, c)
		}
	}
	return dst
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// argsObject returns a tool call's arguments as a compact JSON object; no
// arguments at all count as {}.
func argsObject(args string) (json.RawMessage, error) {
	s := strings.TrimSpace(args)
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	if s[0] != '{' {
		return nil, fmt.Errorf("got %.20q", s)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// textPart is the {"type":"text","text":...} part anthropic and vercel share.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func textParts(texts []string) []any {
	parts := make([]any, 0, len(texts))
	for _, t := range texts {
		parts = append(parts, textPart{"text", t})
	}
	return parts
}

// rawJSON returns s as JSON when it is one JSON value, else as a string.
func rawJSON(s string) any {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}
