package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// wire* mirror every input form at once; normalize picks the one in use.
type wireRecord struct {
	ID           *string       `json:"id"`
	Conversation *string       `json:"conversation"`
	Message      *wireMessage  `json:"message"`
	Metadata     *wireMetadata `json:"metadata"`
	wireMessage
	// Fields of whole response bodies, only to say so (responseHint).
	Choices    json.RawMessage `json:"choices"`
	Candidates json.RawMessage `json:"candidates"`
	StopReason json.RawMessage `json:"stop_reason"`
	BedrockOut json.RawMessage `json:"stopReason"`
}

type wireMessage struct {
	Role      *string         `json:"role"`
	Contents  []string        `json:"contents"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []wireToolCall  `json:"tool_calls"`
	// ProviderData is kept as the record's; Validate checks it.
	ProviderData []ProviderItem `json:"provider_data"`
	ToolCallID   string         `json:"tool_call_id"`
	Name         string         `json:"name"`
	IsError      bool           `json:"is_error"`
}

type wireToolCall struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Function  *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type wireMetadata struct {
	Attribute  []string                   `json:"attribute"`
	SummaryIDs []string                   `json:"summaryIds"`
	Timing     map[string]json.RawMessage `json:"timing"`
	Aux        json.RawMessage            `json:"aux"`
}

// ParseLine parses one line of input into a canonical record. Errors are
// *InputError with the field at fault and Line unset. What reading changes
// (a part it cannot keep, a name it drops) is not said: a Decoder with Warn
// set says it.
func ParseLine(line []byte) (Record, error) { return parseLine(line, nil) }

// parseLine is ParseLine telling note (when not nil) each change it makes.
func parseLine(line []byte, note func(string)) (Record, error) {
	if i := bytes.IndexByte(line, 0); i >= 0 {
		return Record{}, &InputError{Err: fmt.Errorf("NUL byte at column %d", i+1)}
	}
	if !utf8.Valid(line) {
		return Record{}, &InputError{Err: fmt.Errorf("invalid UTF-8 at column %d", InvalidUTF8At(line)+1)}
	}
	if rec, ok := parseBare(line); ok {
		if err := CheckSize(&rec); err != nil {
			return Record{}, err
		}
		return rec, nil
	}
	return parseAny(line, note)
}

// parseAny reads every accepted form through encoding/json.
func parseAny(line []byte, note func(string)) (Record, error) {
	var w wireRecord
	if err := json.Unmarshal(line, &w); err != nil {
		return Record{}, jsonError(line, err)
	}
	// A line with a message object is a record, held to its keys; a
	// message alone may carry keys of its provider's, dropped.
	dropped, err := checkStrict(line, w.Message != nil)
	if err != nil {
		return Record{}, err
	}
	if note == nil {
		note = func(string) {}
	}
	rec, err := w.normalize(note)
	if err != nil {
		return Record{}, err
	}
	// A summary without summaryIds may still be read and rendered; the
	// append Decoder refuses to store one.
	if err := validate(&rec, false); err != nil {
		return Record{}, err
	}
	for _, f := range dropped {
		note(f + " dropped: a record keeps no such field")
	}
	return rec, nil
}

// parseBare is the fast path for the line a chat loop writes most, a bare
// message exactly like {"role":"user","content":"text"} with no escapes in
// the text: it skips reflection, which is most of a bulk append's parsing
// time. Anything else, errors included, is left to parseAny; the fuzz test
// checks that both agree. The caller has checked line is valid UTF-8.
func parseBare(line []byte) (Record, bool) {
	const pre, mid, end = `{"role":"`, `","content":"`, `"}`
	rest, ok := bytes.CutPrefix(bytes.TrimRight(line, " \t\r"), []byte(pre))
	if !ok {
		return Record{}, false
	}
	role, rest, ok := bytes.Cut(rest, []byte(mid))
	if !ok {
		return Record{}, false
	}
	text, ok := bytes.CutSuffix(rest, []byte(end))
	if !ok || len(text) == 0 {
		return Record{}, false
	}
	for _, c := range text {
		if c < 0x20 || c == '"' || c == '\\' {
			return Record{}, false
		}
	}
	r := Role(role)
	switch r {
	case RoleUser, RoleAssistant, RoleSystem:
	default:
		return Record{}, false
	}
	return Record{Message: Message{Role: r, Contents: []string{string(text)}}}, true
}

// InvalidUTF8At returns the offset of the first byte of b that is not part
// of a valid UTF-8 sequence (len(b) when there is none).
func InvalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

func jsonError(line []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &InputError{Err: fmt.Errorf("invalid JSON at column %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))}
	case errors.As(err, &typ):
		field := strings.TrimPrefix(typ.Field, "wireMessage.")
		if field == "" {
			return &InputError{Err: fmt.Errorf("want a JSON object, got %s", typ.Value)}
		}
		return &InputError{Field: field, Err: fmt.Errorf("want %s, got %s", typeName(typ.Type.String()), typ.Value)}
	}
	if bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
		return &InputError{Err: fmt.Errorf("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))}
	}
	return &InputError{Err: errors.New("want a JSON object")}
}

func typeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case goType == "string", goType == "*string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "map"), strings.HasPrefix(goType, "struct"), strings.HasPrefix(goType, "*struct"), strings.Contains(goType, "wire"):
		return "an object"
	}
	return goType
}

// responseHint names the provider whose whole response body line seems to
// be, "" for none.
func (w *wireRecord) responseHint() string {
	switch {
	case w.Choices != nil:
		return "openai"
	case w.Candidates != nil:
		return "gemini"
	case w.StopReason != nil:
		return "anthropic"
	case w.BedrockOut != nil:
		return "bedrock"
	}
	return ""
}

func (w *wireRecord) normalize(note func(string)) (Record, error) {
	var rec Record
	if p := w.responseHint(); p != "" && w.Message == nil {
		return rec, &InputError{Err: fmt.Errorf("a whole %s response body, not a message: append it with 'convo append --from %s'", p, p)}
	}
	msg, prefix := &w.wireMessage, ""
	if w.Message != nil {
		if w.wireMessage.Role != nil {
			return rec, fieldErr("role", "give the role inside message, not beside it")
		}
		msg, prefix = w.Message, "message."
	}
	if w.ID != nil {
		rec.ID = strings.ToUpper(*w.ID) // ULIDs are case-insensitive; store the canonical form
	}
	if w.Conversation != nil {
		rec.Conversation = *w.Conversation // empty: the appender's conversation
	}
	if msg.Role == nil {
		return rec, fieldErr(prefix+"role", "missing role")
	}
	role := Role(*msg.Role)
	if role == "developer" { // OpenAI's newer name for the system prompt
		role = RoleSystem
	}
	if !role.Valid() {
		return rec, fieldErr(prefix+"role", "unknown role %q (want system, user, assistant, tool or summary)", *msg.Role)
	}
	rec.Message.Role = role

	switch {
	case msg.Contents != nil && msg.Content != nil:
		return rec, fieldErr(prefix+"content", "give contents or content, not both")
	case msg.Contents != nil:
		rec.Message.Contents = msg.Contents
	case msg.Content != nil:
		cs, err := contentStrings(msg.Content, prefix+"content", note)
		if err != nil {
			err.Field = prefix + "content" + err.Field
			return rec, err
		}
		rec.Message.Contents = cs
	}
	if rec.Message.Contents == nil {
		rec.Message.Contents = []string{}
	}

	if err := msg.toolCalls(prefix, &rec.Message); err != nil {
		return rec, err
	}
	for i, d := range msg.ProviderData {
		item, err := CompactJSON(d.Item)
		if err != nil {
			return rec, fieldErr(fmt.Sprintf("%sprovider_data[%d].item", prefix, i), "%v", err)
		}
		d.Item = item
		rec.Message.ProviderData = append(rec.Message.ProviderData, d)
	}
	rec.Message.ToolCallID = msg.ToolCallID
	rec.Message.Name = msg.Name
	rec.Message.IsError = msg.IsError
	if role != RoleTool && msg.Name != "" {
		// OpenAI's participant name: valid there, but a record carries a
		// name only as a tool's.
		note(fmt.Sprintf("%sname %q dropped from the %s message: only tool records carry a name", prefix, msg.Name, role))
		rec.Message.Name = ""
	}

	if md := w.Metadata; md != nil {
		if err := md.into(&rec.Metadata); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// toolCalls reads the message's tool calls, in either form, into out.
func (msg *wireMessage) toolCalls(prefix string, out *Message) error {
	for i, tc := range msg.ToolCalls {
		field := fmt.Sprintf("%stool_calls[%d]", prefix, i)
		call := ToolCall{ID: tc.ID, Name: tc.Name}
		args := tc.Arguments
		if tc.Function != nil {
			if tc.Name != "" || tc.Arguments != nil {
				return fieldErr(field, "give name and arguments inside function or beside id, not both")
			}
			call.Name, args = tc.Function.Name, tc.Function.Arguments
		}
		if tc.Type != "" && tc.Type != "function" {
			return fieldErr(field+".type", "unsupported tool call type %q", tc.Type)
		}
		a, err := argumentsText(args)
		if err != nil {
			return fieldErr(field+".arguments", "%v", err)
		}
		call.Arguments = a
		out.ToolCalls = append(out.ToolCalls, call)
	}
	return nil
}

// into reads the metadata into m: ids in their canonical form, timing keys
// as whole milliseconds, aux as compact JSON.
func (md *wireMetadata) into(m *Metadata) error {
	m.Attribute = md.Attribute
	m.SummaryIDs = md.SummaryIDs
	for i, id := range md.SummaryIDs {
		md.SummaryIDs[i] = strings.ToUpper(id) // as the id: the canonical form
	}
	for k, v := range md.Timing {
		ms, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return fieldErr("metadata.timing."+k, "want whole milliseconds since the epoch, got %s", v)
		}
		if err := m.Timing.Set(k, ms); err != nil {
			return fieldErr("metadata.timing."+k, "%v", err)
		}
	}
	if md.Aux != nil && string(md.Aux) != "null" {
		aux, err := ParseAux(md.Aux)
		if err != nil {
			return fieldErr("metadata.aux", "%v", err)
		}
		m.Aux = aux
	}
	return nil
}
