package schemas

import (
	"errors"
	"fmt"
	"strings"
)

// Answer is a compiled answer schema: the JSON Schema an LLM's structured
// answer must match (ask --schema, convo schema set). Compiling one costs
// what the document does, and happens only when a schema is used.
type Answer struct {
	// Title is the document's "title", "" when it has none.
	Title  string
	schema *schema
}

// CompileAnswer checks an answer schema document (JSON Schema 2020-12, or
// draft-07 when its $schema says so; see validate.go for what is checked)
// and compiles it. Nothing is loaded from elsewhere: the providers see only
// this document, so it must be self-contained.
func CompileAnswer(body []byte) (*Answer, error) {
	doc, err := decode(body)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON Schema object")
	}
	title, _ := obj["title"].(string)
	s, err := compile(doc)
	if err != nil {
		return nil, fmt.Errorf("not a valid JSON Schema: %w", err)
	}
	return &Answer{Title: title, schema: s}, nil
}

// AnswerError says why an answer does not match its schema.
type AnswerError struct {
	// NotJSON: the answer is no JSON text at all.
	NotJSON bool
	// Detail is the JSON error, or the reasons the value does not match,
	// one per line.
	Detail string
}

func (e *AnswerError) Error() string {
	if e.NotJSON {
		return "not JSON: " + e.Detail
	}
	return "does not match:\n" + e.Detail
}

// Check validates an answer's text against the schema. A Markdown code
// fence around it, which some local models add whatever they are asked, is
// not part of the answer. The error is an *AnswerError.
func (a *Answer) Check(text string) error {
	text = stripFence(strings.TrimSpace(text))
	v, err := decode([]byte(text))
	if err != nil {
		return &AnswerError{NotJSON: true, Detail: err.Error()}
	}
	var reasons []string
	if !a.schema.validate(v, "", &reasons) {
		return &AnswerError{Detail: strings.Join(reasons, "\n")}
	}
	return nil
}

// stripFence removes a Markdown code fence around s.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := strings.TrimSuffix(s, "```")
	if _, body, ok := strings.Cut(inner, "\n"); ok {
		return strings.TrimSpace(body)
	}
	return s
}
