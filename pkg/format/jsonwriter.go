package format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

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

// fieldRaw writes "key":raw followed by a comma, raw being compact JSON.
func (j *jsonWriter) fieldRaw(key string, raw []byte) {
	j.raw(`"` + key + `":`)
	if j.err == nil {
		_, j.err = j.w.Write(raw)
	}
	j.raw(",")
}

// bodySettings writes a request body's settings: the model, the output
// limit under the provider's own key for it (when there is one), and the
// temperature when given.
func (j *jsonWriter) bodySettings(r *Request, maxTokensKey string) {
	j.field("model", r.Model)
	if r.MaxTokens > 0 {
		j.field(maxTokensKey, r.MaxTokens)
	}
	if r.Temperature != nil {
		j.field("temperature", *r.Temperature)
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
