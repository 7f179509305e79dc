package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// readDocument decodes in, returning the records' canonical lines and the notes.
func readDocument(in string) ([]string, []string, error) {
	d := NewDecoder(strings.NewReader(in))
	var notes []string
	d.Warn = func(line int, msg string) { notes = append(notes, msg) }
	var out []string
	for {
		r, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out, notes, nil
		}
		if err != nil {
			return out, notes, err
		}
		out = append(out, string(AppendJSON(nil, &r)))
	}
}

// TestDecoderDocuments: a JSON array, a request body and pretty-printed
// JSON are read as the JSONL of their elements (issue 27, item 24), with
// one note.
func TestDecoderDocuments(t *testing.T) {
	want, _, err := readDocument("{\"role\":\"system\",\"content\":\"be brief\"}\n{\"role\":\"user\",\"content\":\"hi\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"array":         `[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]`,
		"array lines":   "\n[\n  {\"role\": \"system\", \"content\": \"be brief\"},\n  {\"role\": \"user\", \"content\": \"hi\"}\n]\n",
		"request body":  `{"model":"gpt-4o","temperature":0,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`,
		"request lines": "{\n \"model\": \"gpt-4o\",\n \"messages\": [\n  {\"role\": \"system\", \"content\": \"be brief\"},\n  {\"role\": \"user\", \"content\": \"hi\"}\n ]\n}\n",
		"pretty":        "{\n  \"role\": \"system\",\n  \"content\": \"be brief\"\n}\n{\n  \"role\": \"user\",\n  \"content\": \"hi\"\n}\n",
	} {
		got, notes, err := readDocument(in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
		if len(notes) != 1 {
			t.Errorf("%s: notes %q, want one", name, notes)
		}
	}
	if _, notes, _ := readDocument(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`); len(notes) != 1 || !strings.Contains(notes[0], `"model" ignored`) {
		t.Errorf("request body note %q does not name what it ignores", notes)
	}
}

// TestDecoderDocumentErrors: an element is held to the checks of a line,
// the error naming the line where it starts.
func TestDecoderDocumentErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"[\n {\"role\":\"user\",\"content\":\"a\"},\n {\"role\":\"robot\",\n  \"content\":\"b\"}\n]", "line 3: role: unknown role"},
		{"[\n {\"role\":\"user\",\"content\":\"a\"},\n {\"role\":\"user\" \"content\":\"b\"}\n]", "line 3: invalid JSON"},
		{"{\n \"model\": \"m\",\n \"messages\": [\n  {\"role\":\"user\",\"content\":\"a\"},\n  {\"role\":\"user\",\"content\":\"a\",\"content\":\"b\"}\n ]\n}", "line 5:"},
		{"{\n \"role\": \"user\",\n \"content\": \"a\"\n}\n{\n \"role\": \"user\",\n", "line 5: invalid JSON"},
		{"[{\"role\":\"user\",\"content\":\"a\\u0000\"}]", "line 1:"},
		{"[{\"role\":\"user\",\"content\":\"a\"}]]", "line 1: invalid JSON"},
		{"[\"text\"]", "line 1: want a JSON object"},
	} {
		_, _, err := readDocument(tt.in)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// TestDecoderDocumentLimit: an element over the line limit is refused, as a
// line is.
func TestDecoderDocumentLimit(t *testing.T) {
	huge := "[\n" + `{"role":"user","content":"a"},` + "\n" + `{"role":"user","content":"` + strings.Repeat("x", MaxLineBytes) + `"}]`
	_, _, err := readDocument(huge)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 3 || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v, want line 3 too long", err)
	}
}

// documentForms returns line as pretty-printed JSON and inside an array,
// both of which must read as line does.
func documentForms(line []byte) []string {
	var pretty bytes.Buffer
	if json.Indent(&pretty, line, "", "  ") != nil {
		return nil
	}
	return []string{pretty.String(), "[\n" + pretty.String() + "\n]"}
}
