package transcript

// The values inside a record as parsed: contents, tool call arguments,
// aux.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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

// checkArguments refuses arguments that are neither empty nor a JSON
// object: stored, they would make render fail for every provider that
// sends arguments as an object (Decoder.CheckAppend).
func checkArguments(a string) error {
	t := strings.TrimSpace(a)
	if t == "" {
		return nil
	}
	if t[0] != '{' || !json.Valid([]byte(t)) {
		return fmt.Errorf("want a JSON object (as a string or as it is), got %s", abbreviate([]byte(a)))
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
