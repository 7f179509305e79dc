package otel

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Converter turns the records of conversations, in transcript order, into
// spans (docs/export.md): a chat span per assistant record, an execute_tool
// span per tool result, a span per summary. It holds only what the next
// span needs: when the request being answered began, the calls of the last
// assistant record and, with Content, the messages since it.
type Converter struct {
	// Content puts message texts on the spans (gen_ai.input.messages and
	// the like); without it no text leaves the record.
	Content bool

	rec    transcript.Record
	aux    transcript.Pick // the aux keys a span reads (auxKeys), of rec
	conv   string
	trace  TraceID
	start  int64           // creation of the first record since the last assistant one (ms), 0: none
	input  []byte          // with Content: the JSON messages since the last assistant record, unclosed
	calls  map[string]call // the last assistant record's calls, by id
	out    Span            // handed to emit, filled anew for every record
	names  [2]string       // the last model and its chat span's name
	finish [1]string       // the chat span's finish reasons (Clone copies them)
}

// call is a tool call whose result may follow.
type call struct {
	parent    SpanID
	name      string
	arguments string
	end       int64 // when the calling turn ended (ms)
}

// Record reads one record (canonical JSON) and calls emit with the span it
// makes, if any. emit must not keep the span past its return (Clone makes
// a copy to keep) but may keep its strings.
func (c *Converter) Record(body []byte, emit func(*Span) error) error {
	if !c.Content {
		if conv, created, ok := peekInput(body); ok {
			if string(conv) != c.conv { // without a copy when it goes on
				c.enter(string(conv))
			}
			if c.start == 0 {
				c.start = created
			}
			return nil
		}
	}
	r := &c.rec
	if c.aux.Keys == nil {
		c.aux.Keys = auxKeys[:]
	}
	if err := transcript.DecodeStoredPick(body, r, &c.aux); err != nil {
		return err
	}
	c.enter(r.Conversation)
	switch r.Message.Role {
	case transcript.RoleAssistant:
		s := c.chat(r)
		c.start, c.input = 0, c.input[:0]
		return emit(s)
	case transcript.RoleSummary:
		return emit(c.summary(r))
	case transcript.RoleTool:
		c.began(r)
		c.addInput(r)
		return emit(c.tool(r))
	default:
		c.began(r)
		c.addInput(r)
	}
	return nil
}

// auxKeys are the aux keys spans read, indexed by the aux* constants:
// reading these alone, not a map of every key, saved a fifth of an
// export's time (docs/performance.md).
var auxKeys = [...]string{"model", "provider", "response_id", "finish_reason", "usage",
	"summarizer", "coveredFromId", "coveredToId", "tokensBefore", "tokensAfter"}

const (
	auxModel = iota
	auxProvider
	auxResponseID
	auxFinishReason
	auxUsage
	auxSummarizer
	auxCoveredFrom
	auxCoveredTo
	auxTokensBefore
	auxTokensAfter
)

// enter starts conversation conv's trace, unless its records go on.
func (c *Converter) enter(conv string) {
	if conv != c.conv {
		c.conv, c.trace = conv, TraceOf(conv)
		c.start, c.input = 0, c.input[:0]
		clear(c.calls)
	}
}

func (c *Converter) began(r *transcript.Record) {
	if c.start == 0 {
		c.start = r.Metadata.Timing.Creation
	}
}

func (c *Converter) span(r *transcript.Record, name string, kind int) *Span {
	attrs := append(c.out.Attrs[:0], str("gen_ai.conversation.id", r.Conversation), str("convo.record.id", r.ID))
	c.out = Span{Trace: c.trace, ID: SpanOf(r.Conversation, r.ID), Name: name, Kind: kind, Attrs: attrs}
	return &c.out
}

// chat is the span of a provider turn.
func (c *Converter) chat(r *transcript.Record) *Span {
	aux := c.aux.Vals
	model := c.names[0]
	if same := sameString(aux[auxModel], model) || aux[auxModel] == nil && model == ""; !same || c.names[1] == "" {
		model = auxString(aux[auxModel])
		c.names = [2]string{model, strings.TrimSpace("chat " + model)}
	}
	name := c.names[1]
	s := c.span(r, name, KindClient)
	t := r.Metadata.Timing
	start, end := cmpOr(t.LLMStart, c.start, t.Creation), cmpOr(t.LLMEnd, 0, t.Creation)
	s.Start, s.End = start*1e6, max(start, end)*1e6
	s.Attrs = append(s.Attrs, str("gen_ai.operation.name", "chat"))
	if p := commonString(aux[auxProvider]); p != "" {
		s.Attrs = append(s.Attrs, str("gen_ai.provider.name", providerName(p)))
	}
	if model != "" {
		s.Attrs = append(s.Attrs, str("gen_ai.request.model", model), str("gen_ai.response.model", model))
	}
	if id := auxString(aux[auxResponseID]); id != "" {
		s.Attrs = append(s.Attrs, str("gen_ai.response.id", id))
	}
	finish := commonString(aux[auxFinishReason])
	if finish != "" {
		c.finish[0] = finish
		s.Attrs = append(s.Attrs, Attr{Key: "gen_ai.response.finish_reasons", Strs: c.finish[:]})
	}
	s.Attrs = appendUsage(s.Attrs, aux[auxUsage])
	if c.Content {
		if len(c.input) > 0 {
			s.Attrs = append(s.Attrs, str("gen_ai.input.messages", string(append(c.input, ']'))))
		}
		s.Attrs = append(s.Attrs, str("gen_ai.output.messages", string(outputMessages(r, finish))))
	}
	if c.calls == nil {
		c.calls = map[string]call{}
	}
	clear(c.calls) // a result answers a call of the turn before it
	for _, tc := range r.Message.ToolCalls {
		c.calls[tc.ID] = call{parent: s.ID, name: tc.Name, arguments: tc.Arguments, end: end}
	}
	return s
}

// tool is the execute_tool span of a tool result.
func (c *Converter) tool(r *transcript.Record) *Span {
	m := &r.Message
	cl, known := c.calls[m.ToolCallID]
	name := cmpOrS(cl.name, m.Name)
	s := c.span(r, strings.TrimSpace("execute_tool "+name), KindInternal)
	end := r.Metadata.Timing.Creation
	start := end
	if known {
		s.Parent = cl.parent
		start = min(cl.end, end)
	}
	s.Start, s.End = start*1e6, end*1e6
	s.Attrs = append(s.Attrs, str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.type", "function"))
	if name != "" {
		s.Attrs = append(s.Attrs, str("gen_ai.tool.name", name))
	}
	if m.ToolCallID != "" {
		s.Attrs = append(s.Attrs, str("gen_ai.tool.call.id", m.ToolCallID))
	}
	if m.IsError {
		s.Error = true
		s.Attrs = append(s.Attrs, str("error.type", "tool_error"))
	}
	if c.Content {
		if known {
			s.Attrs = append(s.Attrs, str("gen_ai.tool.call.arguments", cl.arguments))
		}
		s.Attrs = append(s.Attrs, str("gen_ai.tool.call.result", strings.Join(m.Contents, "\n")))
	}
	return s
}

// summary is the span of a summary record.
func (c *Converter) summary(r *transcript.Record) *Span {
	aux := c.aux.Vals
	summarizer := auxString(aux[auxSummarizer])
	s := c.span(r, strings.TrimSpace("summarize "+summarizer), KindInternal)
	s.Start = r.Metadata.Timing.Creation * 1e6
	s.End = s.Start
	if summarizer != "" {
		s.Attrs = append(s.Attrs, str("convo.summary.summarizer", summarizer))
	}
	s.Attrs = append(s.Attrs, num("convo.summary.records", int64(len(r.Metadata.SummaryIDs))))
	for _, k := range [...]struct {
		aux  int
		attr string
	}{{auxCoveredFrom, "convo.summary.covered_from_id"}, {auxCoveredTo, "convo.summary.covered_to_id"}} {
		if v := auxString(aux[k.aux]); v != "" {
			s.Attrs = append(s.Attrs, str(k.attr, v))
		}
	}
	for _, k := range [...]struct {
		aux  int
		attr string
	}{{auxTokensBefore, "convo.summary.tokens_before"}, {auxTokensAfter, "convo.summary.tokens_after"}} {
		if v, ok := auxInt(aux[k.aux]); ok {
			s.Attrs = append(s.Attrs, num(k.attr, v))
		}
	}
	if model := auxString(aux[auxModel]); model != "" {
		s.Attrs = append(s.Attrs, str("gen_ai.operation.name", "chat"), str("gen_ai.request.model", model))
		s.Attrs = appendUsage(s.Attrs, aux[auxUsage])
	}
	if c.Content {
		s.Attrs = append(s.Attrs, str("gen_ai.output.messages", string(outputMessages(r, ""))))
	}
	return s
}

// usageKeys are the names providers give the input and output token
// counts, the first found wins.
var usageKeys = [2][]string{
	{"input_tokens", "prompt_tokens", "promptTokenCount", "inputTokens", "prompt_eval_count"},
	{"output_tokens", "completion_tokens", "candidatesTokenCount", "outputTokens", "eval_count"},
}

func appendUsage(attrs []Attr, raw json.RawMessage) []Attr {
	if len(raw) < 2 || raw[0] != '{' {
		return attrs
	}
	for i, key := range [2]string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"} {
		for _, k := range usageKeys[i] {
			if v, ok := topInt(raw, k); ok {
				attrs = append(attrs, num(key, v))
				break
			}
		}
	}
	return attrs
}

// topInt finds the integer under key at the top level of the compact JSON
// object raw (aux values are stored compact). Reading the whole object
// with encoding/json cost a third of an export's time.
func topInt(raw []byte, key string) (int64, bool) {
	depth, inStr := 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			// a key at depth 1 that is ours, followed by a colon
			if rest := raw[i+1:]; depth == 1 && len(rest) > len(key)+1 && string(rest[:len(key)]) == key && rest[len(key)] == '"' && rest[len(key)+1] == ':' {
				return auxInt(numberAt(rest[len(key)+2:]))
			}
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return 0, false
}

// numberAt is the JSON number raw starts with.
func numberAt(raw []byte) []byte {
	n := 0
	for n < len(raw) && (raw[n] == '-' || raw[n] >= '0' && raw[n] <= '9') {
		n++
	}
	return raw[:n]
}

// providerName is a registry name as gen_ai.provider.name spells it.
func providerName(p string) string {
	switch p {
	case "gemini":
		return "gcp.gemini"
	case "bedrock":
		return "aws.bedrock"
	case "openai-responses":
		return "openai"
	}
	return p
}

// sameString reports whether raw is the JSON string of s, without
// escapes: the model of most records is the one before.
func sameString(raw json.RawMessage, s string) bool {
	return len(raw) == len(s)+2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == s
}

// commonString is auxString without an allocation for the providers and
// finish reasons most records hold.
func commonString(raw json.RawMessage) string {
	if len(raw) > 2 && raw[0] == '"' {
		switch string(raw[1 : len(raw)-1]) {
		case "openai":
			return "openai"
		case "anthropic":
			return "anthropic"
		case "gemini":
			return "gemini"
		case "ollama":
			return "ollama"
		case "stop":
			return "stop"
		case "end_turn":
			return "end_turn"
		case "tool_use":
			return "tool_use"
		case "tool_calls":
			return "tool_calls"
		case "length":
			return "length"
		case "max_tokens":
			return "max_tokens"
		case "STOP":
			return "STOP"
		}
	}
	return auxString(raw)
}

// auxString is the text of raw if it is a JSON string, "" if not.
func auxString(raw json.RawMessage) string {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	if inner := raw[1 : len(raw)-1]; !bytes.ContainsAny(inner, `\"`) {
		return string(inner) // no escapes: the common case, without a decoder
	}
	var s string
	json.Unmarshal(raw, &s)
	return s
}

func auxInt(raw []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}

// cmpOr is the first of p's value, a and b that is not zero.
func cmpOr(p *int64, a, b int64) int64 {
	switch {
	case p != nil && *p != 0:
		return *p
	case a != 0:
		return a
	}
	return b
}

func cmpOrS(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
