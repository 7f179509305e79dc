// Package format renders the LLM-facing view of a transcript (SPEC section 2,
// rule 4) as the request payload a provider's API accepts, and parses a
// provider's response body back into an assistant record. It is a pure
// transform: no SDK, no network, no store.
//
// Every provider goes through one neutral model: strictly alternating user
// and assistant turns, the user first, where a user turn carries the tool
// results answering the assistant turn before it (results first, then any
// user text) and an assistant turn carries text and tool calls. Each
// provider's file turns that model into its wire format; see the comment at
// the top of each file for the documentation it follows.
//
// Content strings: a provider whose messages take a list of parts gets one
// text part per content string (anthropic, gemini, bedrock, vercel); one that
// takes a single string gets them joined with a blank line (openai, ollama,
// vercel-legacy, and every system prompt that is one string). Empty and
// blank-only strings are left out: several providers reject empty text.
package format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Providers lists the request formats Render knows, in the docs' order.
var Providers = []string{"openai", "anthropic", "gemini", "bedrock", "vercel", "vercel-legacy", "ollama"}

// DefaultAnthropicMaxTokens is max_tokens in an anthropic --body when none is
// given: the Messages API requires it, and 4096 is the largest output every
// current Claude model accepts.
const DefaultAnthropicMaxTokens = 4096

// SummaryHeading introduces the summary in the system prompt. The summary
// travels with the system prompt, never as a message, so no provider's
// alternation rule can break.
const SummaryHeading = "Summary of the earlier conversation (the messages that follow continue from it):"

// Options shape one rendering.
type Options struct {
	Provider string
	// System is the system prompt, one entry per content string; nil means
	// none. The caller resolves --system against the stored prompt.
	System []string
	// Summary is the text of the latest summary, "" for none. It is added to
	// the system prompt as its own labelled section.
	Summary string
	// Lenient repairs what a provider would reject (arguments that are not a
	// JSON object, tool calls without results and results without calls)
	// instead of failing, and reports each repair through Warn.
	Lenient bool
	Warn    func(format string, args ...any)
	// Body writes a whole request body: Model, MaxTokens and Temperature
	// (nil: unset) go in it. Without Body only the system and messages
	// fields are written.
	Body        bool
	Model       string
	MaxTokens   int
	Temperature *float64
}

// ModelInBody reports whether provider's request body names the model;
// gemini and bedrock take it in the URL.
func ModelInBody(provider string) bool { return provider != "gemini" && provider != "bedrock" }

// Turn is one message of the neutral model.
type Turn struct {
	Role    transcript.Role // RoleUser or RoleAssistant
	Texts   []string
	Calls   []Call   // assistant turns only
	Results []Result // user turns only: answers to the previous turn's calls
}

func (t *Turn) empty() bool { return len(t.Texts)+len(t.Calls)+len(t.Results) == 0 }

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
// is reused once turn returns: a wire that keeps one must copy it.
type wire interface {
	open(j *jsonWriter, o *Options, system []string)
	turn(j *jsonWriter, t *Turn)
	close(j *jsonWriter)
	// objectArgs tells whether tool call arguments must be a JSON object.
	objectArgs() bool
}

func newWire(provider string) (wire, error) {
	switch provider {
	case "openai":
		return &openaiWire{}, nil
	case "anthropic":
		return &anthropicWire{}, nil
	case "gemini":
		return &geminiWire{}, nil
	case "bedrock":
		return &bedrockWire{}, nil
	case "vercel":
		return &vercelWire{}, nil
	case "vercel-legacy":
		return &vercelLegacyWire{}, nil
	case "ollama":
		return &ollamaWire{}, nil
	}
	return nil, fmt.Errorf("unknown provider %q (want one of %s)", provider, strings.Join(Providers, ", "))
}

// Renderer writes one request payload from the view's records, fed in
// transcript order. It holds at most an assistant turn and the user turn
// after it, so a long conversation streams through in constant memory.
// Nothing is written before the first message or Close, and output is
// buffered, so a failure early on leaves stdout empty.
type Renderer struct {
	opt     Options
	wire    wire
	j       *jsonWriter
	started bool
	// The assistant turn whose results are still arriving, its record id,
	// and the user turn after it.
	asst     *Turn
	asstID   string
	user     *Turn
	answered map[string]bool
	// held is the last complete turn, kept back so a following turn of the
	// same role (possible only after a lenient repair) can merge into it.
	held    *Turn
	emitted bool
	rec     transcript.Record // AddJSON's record, reused
	free    []*Turn           // written turns, for reuse
}

// NewRenderer returns a Renderer writing to w.
func NewRenderer(w io.Writer, opt Options) (*Renderer, error) {
	wr, err := newWire(opt.Provider)
	if err != nil {
		return nil, err
	}
	if opt.Warn == nil {
		opt.Warn = func(string, ...any) {}
	}
	return &Renderer{opt: opt, wire: wr, j: newJSONWriter(w), answered: map[string]bool{}}, nil
}

// Add feeds the next record of the view. System records are skipped (the
// prompt is Options.System); a summary record, which may come only before
// any message, sets Options.Summary.
func (r *Renderer) Add(rec *transcript.Record) error {
	m := &rec.Message
	switch m.Role {
	case transcript.RoleSystem:
		return nil
	case transcript.RoleSummary:
		if r.started || r.asst != nil || r.user != nil {
			return fmt.Errorf("record %s: a summary after the messages it should precede", rec.ID)
		}
		r.opt.Summary = strings.Join(m.Contents, "\n\n")
		return nil
	case transcript.RoleUser:
		if r.user == nil {
			r.user = r.newTurn(transcript.RoleUser)
		}
		r.user.Texts = appendTexts(r.user.Texts, m.Contents)
	case transcript.RoleTool:
		return r.addResult(rec)
	case transcript.RoleAssistant:
		if err := r.flush(); err != nil {
			return err
		}
		t := r.newTurn(transcript.RoleAssistant)
		t.Texts = appendTexts(nil, m.Contents)
		sigs := thoughtSignatures(rec)
		for i, c := range m.ToolCalls {
			call := Call{ID: c.ID, Name: c.Name, Args: c.Arguments, Signature: sigs[c.ID]}
			if r.wire.objectArgs() {
				in, err := argsObject(c.Arguments)
				if err != nil {
					if !r.opt.Lenient {
						return inputError(rec.ID,
							"tool call %s (message.tool_calls[%d]): arguments are not a JSON object (%v); --lenient wraps them as {\"_raw\": ...}",
							c.ID, i, err)
					}
					r.opt.Warn("record %s: tool call %s: arguments are not a JSON object; sent as {\"_raw\": ...}", rec.ID, c.ID)
					in, _ = json.Marshal(map[string]string{"_raw": c.Arguments})
				}
				call.Input = in
			}
			t.Calls = append(t.Calls, call)
		}
		r.asst, r.asstID = t, rec.ID
		clear(r.answered)
	default:
		return fmt.Errorf("record %s: unknown role %q", rec.ID, m.Role)
	}
	return nil
}

func (r *Renderer) addResult(rec *transcript.Record) error {
	m := &rec.Message
	var call *Call
	if r.asst != nil && !r.answered[m.ToolCallID] {
		for i := range r.asst.Calls {
			if r.asst.Calls[i].ID == m.ToolCallID {
				call = &r.asst.Calls[i]
				break
			}
		}
	}
	if call == nil {
		if !r.opt.Lenient {
			return inputError(rec.ID, "tool result for %s answers no tool call of the assistant message before it; --lenient drops it", m.ToolCallID)
		}
		r.opt.Warn("record %s: dropped the tool result for %s: it answers no tool call of the assistant message before it", rec.ID, m.ToolCallID)
		return nil
	}
	r.answered[call.ID] = true
	name := m.Name
	if name == "" {
		name = call.Name // gemini, vercel and vercel-legacy need it
	}
	if r.user == nil {
		r.user = r.newTurn(transcript.RoleUser)
	}
	r.user.Results = append(r.user.Results, Result{CallID: call.ID, Name: name, Texts: appendTexts(nil, m.Contents), IsError: m.IsError})
	return nil
}

// flush completes the pending assistant turn and the user turn after it.
func (r *Renderer) flush() error {
	if a := r.asst; a != nil {
		var missing []string
		for _, c := range a.Calls {
			if !r.answered[c.ID] {
				missing = append(missing, c.ID)
			}
		}
		if len(missing) > 0 {
			if !r.opt.Lenient {
				return inputError(r.asstID, "tool call(s) %s have no result; --lenient drops them", strings.Join(missing, ", "))
			}
			r.opt.Warn("record %s: dropped tool call(s) %s: no result", r.asstID, strings.Join(missing, ", "))
			a.Calls = slices.DeleteFunc(a.Calls, func(c Call) bool { return !r.answered[c.ID] })
		}
		r.emit(a)
	}
	if r.user != nil {
		r.emit(r.user)
	}
	r.asst, r.user = nil, nil
	return r.j.err
}

// emit passes on a complete turn, merging it into the held one when both
// have the same role, so the output always alternates, user first.
func (r *Renderer) emit(t *Turn) {
	if t.empty() {
		return
	}
	if h := r.held; h != nil && h.Role == t.Role {
		h.Results = append(h.Results, t.Results...)
		h.Texts = append(h.Texts, t.Texts...)
		h.Calls = append(h.Calls, t.Calls...)
		return
	}
	if r.held == nil && !r.emitted && t.Role == transcript.RoleAssistant {
		// Rule 2 holds for stored transcripts; this covers a lenient repair
		// that emptied the first user turn.
		r.held = &Turn{Role: transcript.RoleUser, Texts: []string{transcript.FakeContent}}
	}
	if r.held != nil {
		r.write(r.held)
	}
	r.held = t
}

func (r *Renderer) write(t *Turn) {
	r.start()
	r.emitted = true
	r.wire.turn(r.j, t)
	*t = Turn{Calls: t.Calls[:0], Results: t.Results[:0]}
	r.free = append(r.free, t)
}

// newTurn recycles written turns: a long conversation then renders with
// a handful of allocations a record.
func (r *Renderer) newTurn(role transcript.Role) *Turn {
	if n := len(r.free); n > 0 {
		t := r.free[n-1]
		r.free = r.free[:n-1]
		t.Role = role
		return t
	}
	return &Turn{Role: role}
}

func (r *Renderer) start() {
	if r.started {
		return
	}
	r.started = true
	r.wire.open(r.j, &r.opt, systemParts(r.opt.System, r.opt.Summary))
}

// Close writes what is held and the end of the payload, and flushes.
func (r *Renderer) Close() error {
	if err := r.flush(); err != nil {
		return err
	}
	if r.held != nil {
		r.write(r.held)
		r.held = nil
	}
	r.start()
	r.wire.close(r.j)
	r.j.raw("\n")
	return r.j.flush()
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

// jsonWriter writes a payload piece by piece: literal JSON text for the
// frame, encoding/json for the values inside it. Values keep their struct
// field order, so output is deterministic, and HTML characters stay as they
// are. The first error sticks.
type jsonWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
	// first tracks, per open array, whether the next element is its first.
	first bool
	// scratch is for elements appended by hand (see openai.go).
	scratch []byte
}

func newJSONWriter(w io.Writer) *jsonWriter {
	j := &jsonWriter{w: bufio.NewWriterSize(w, 64<<10)}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	return j
}

func (j *jsonWriter) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

// value writes v as JSON.
func (j *jsonWriter) value(v any) {
	if j.err != nil {
		return
	}
	j.buf.Reset()
	if err := j.enc.Encode(v); err != nil {
		j.err = fmt.Errorf("encode payload: %w", err)
		return
	}
	_, j.err = j.w.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte{'\n'}))
}

// field writes "key":v followed by a comma.
func (j *jsonWriter) field(key string, v any) {
	j.raw(`"` + key + `":`)
	j.value(v)
	j.raw(",")
}

// bodySettings writes a request body's settings: the model, the output
// limit under the provider's own key for it (when maxTokens > 0), and the
// temperature when given.
func (j *jsonWriter) bodySettings(o *Options, maxTokensKey string, maxTokens int) {
	j.field("model", o.Model)
	if maxTokens > 0 {
		j.field(maxTokensKey, maxTokens)
	}
	if o.Temperature != nil {
		j.field("temperature", *o.Temperature)
	}
}

// openArray writes "key":[ and starts counting elements.
func (j *jsonWriter) openArray(key string) {
	j.raw(`"` + key + `":[`)
	j.first = true
}

// elem writes one array element.
func (j *jsonWriter) elem(v any) {
	if !j.first {
		j.raw(",")
	}
	j.first = false
	j.value(v)
}

// elemBytes writes one array element given as JSON text, and keeps b's
// memory for the next one.
func (j *jsonWriter) elemBytes(b []byte) {
	if !j.first {
		j.raw(",")
	}
	j.first = false
	if j.err == nil {
		_, j.err = j.w.Write(b)
	}
	j.scratch = b
}

// appendJoined appends texts as one JSON string, joined by a blank line.
func appendJoined(dst []byte, texts []string) []byte {
	if len(texts) == 1 {
		return transcript.AppendString(dst, texts[0])
	}
	return transcript.AppendString(dst, strings.Join(texts, "\n\n"))
}

func (j *jsonWriter) flush() error {
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
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
