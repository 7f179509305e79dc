package transcript

// The values inside a record as parsed: contents, tool call arguments,
// aux.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// contentStrings reads an OpenAI-style content: a string, null, or a list of
// text parts ({"type":"text","text":"..."}) or plain strings. A media part
// (mediaParts) becomes a placeholder text naming it, told to note; field
// names the content for the note.
func contentStrings(raw json.RawMessage, field string, note func(string)) ([]string, *InputError) {
	raw = bytes.TrimSpace(raw)
	switch {
	case string(raw) == "null":
		return nil, nil
	case len(raw) > 0 && raw[0] == '"':
		s, err := unquote(raw)
		if err != nil {
			return nil, &InputError{Err: err}
		}
		if s == "" {
			return nil, nil
		}
		return []string{s}, nil
	case len(raw) > 0 && raw[0] == '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return nil, &InputError{Err: err}
		}
		out := make([]string, 0, len(parts))
		for i, p := range parts {
			var s string
			if json.Unmarshal(p, &s) == nil {
				out = append(out, s)
				continue
			}
			var part struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			}
			err := json.Unmarshal(p, &part)
			if err == nil && slices.Contains(mediaParts, part.Type) {
				text := "[" + part.Type + " part dropped]"
				note(fmt.Sprintf("%s[%d]: %s part replaced by the text %q: a record holds text only", field, i, part.Type, text))
				out = append(out, text)
				continue
			}
			if err != nil || part.Text == nil || (part.Type != "text" && part.Type != "") {
				return nil, &InputError{Field: fmt.Sprintf("[%d]", i), Err: fmt.Errorf("only text parts are supported, and %s as a placeholder (got %s)", strings.Join(mediaParts, ", "), abbreviate(p))}
			}
			out = append(out, *part.Text)
		}
		return out, nil
	}
	return nil, &InputError{Err: fmt.Errorf("want a string or a list of text parts, got %s", abbreviate(raw))}
}

// mediaParts are the OpenAI chat content parts a record cannot hold: each
// is kept as a placeholder text that names it, so the turn still reads as
// it went and nothing is dropped unseen.
var mediaParts = []string{"image_url", "input_audio", "file"}

// argumentsText returns tool call arguments as a JSON text: a JSON string is
// taken as the text itself (OpenAI), anything else (an object, as Ollama
// sends) is kept as the raw JSON it was given.
func argumentsText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		return unquote(raw)
	}
	return string(raw), nil
}

// CheckArguments refuses tool-call arguments that no provider takes back:
// anything but the text of one JSON object ("" and "null" included: "{}"
// is a call without arguments), and inside it a NUL (raw or \u0000), a
// lone UTF-16 surrogate escape, invalid UTF-8 or a key given twice in one
// object. Every append checks it (Decoder.CheckAppend, append --from), so
// that the store never holds a call render would send and the provider
// refuse; the error says what, and where within the arguments.
func CheckArguments(a string) error {
	t := strings.Trim(a, " \t\r\n") // JSON's white space, no other
	switch {
	case t == "":
		return errors.New(`want a JSON object, got nothing ({} for a call without arguments)`)
	case !utf8.ValidString(t):
		return fmt.Errorf("invalid UTF-8 at byte %d", InvalidUTF8At([]byte(a))+1)
	case strings.IndexByte(t, 0) >= 0:
		return errors.New("contains a NUL character")
	case nestedDeeper(t, MaxNesting):
		return fmt.Errorf("nested more than %d levels deep, deeper than any reader goes", MaxNesting)
	case t[0] != '{' || !json.Valid([]byte(t)):
		return fmt.Errorf("want a JSON object (as a string or as it is), got %s", abbreviate([]byte(a)))
	}
	w := strictWalker{b: []byte(t), noNUL: true}
	if err := w.value(false, nil, false); err != nil {
		var ie *InputError
		if errors.As(err, &ie) && ie.Field != "" {
			return fmt.Errorf("at %s: %w", ie.Field, ie.Err)
		}
		return err
	}
	return nil
}

// CheckCalls checks the arguments of each of r's tool calls
// (CheckArguments): an *InputError naming the call and its place.
func CheckCalls(r *Record) error {
	for i, c := range r.Message.ToolCalls {
		if err := CheckArguments(c.Arguments); err != nil {
			return fieldErr(fmt.Sprintf("message.tool_calls[%d].arguments", i), "tool call %q: %v", c.ID, err)
		}
	}
	return nil
}

// unquote decodes a JSON string that json.Unmarshal has already checked;
// one without escapes, the common case, is copied as it is.
func unquote(raw json.RawMessage) (string, error) {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// ParseAux parses a JSON object into aux values kept as compact JSON texts.
func ParseAux(raw []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("want a JSON object, got %s", abbreviate(raw))
	}
	for k, v := range m {
		c, err := CompactJSON(v)
		if err != nil {
			return nil, err
		}
		m[k] = c
	}
	return m, nil
}

// CompactJSON returns v without insignificant white space, or an error if v
// is not one valid JSON value.
func CompactJSON(v []byte) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return nil, fmt.Errorf("invalid JSON %s: %v", abbreviate(v), err)
	}
	return b.Bytes(), nil
}

func abbreviate(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
