package ask

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/transcript"
	"github.com/convo-cli/convo/schemas"
)

// Schema is an answer schema, checked and compiled: the document the
// provider is sent, and what its answer must match.
type Schema struct {
	// Name is what the provider is told the schema is called: the
	// document's title, else the name it was given, as providers take it
	// (format.SchemaNameOf).
	Name string
	// Body is the document as given.
	Body   []byte
	answer *schemas.Answer
}

// NewSchema checks and compiles an answer schema document (JSON Schema
// 2020-12 unless its $schema says otherwise); name names it when it has no
// title (see FileSchemaName). The document must be self-contained: no
// provider follows a $ref to another file.
func NewSchema(name string, body []byte) (*Schema, error) {
	a, err := schemas.CompileAnswer(body)
	if err != nil {
		return nil, err
	}
	if a.Title != "" {
		name = a.Title
	}
	return &Schema{Name: format.SchemaNameOf(name), Body: body, answer: a}, nil
}

// FileSchemaName is the name a schema file gives its schema: its base name
// less .json and .schema ("city.schema.json" names "city").
func FileSchemaName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return strings.TrimSuffix(name, ".schema")
}

// schema returns the answer schema of the turn: its own, else the
// conversation's stored one unless NoSchema, else none. A stored schema is
// compiled only here, when a turn uses it.
func (a *Asker) schema(ctx context.Context, s Store, t *Turn) (*Schema, error) {
	switch {
	case t.NoSchema:
		return nil, nil
	case t.Schema != nil:
		return t.Schema, nil
	}
	stored, ok, err := s.Schema(ctx, t.Conversation)
	if err != nil || !ok {
		return nil, err
	}
	sch, err := NewSchema(stored.Name, stored.Body)
	if err != nil {
		return nil, fmt.Errorf("stored schema of %q: %w (replace it with convo schema set)", t.Conversation, err)
	}
	return sch, nil
}

// check validates the answer's text against the schema. An answer made of
// tool calls alone is not checked: the structured answer comes after the
// tools have run.
func (sc *Schema) check(rec *transcript.Record) error {
	text := strings.TrimSpace(strings.Join(rec.Message.Contents, ""))
	if text == "" && len(rec.Message.ToolCalls) > 0 {
		return nil
	}
	err := sc.answer.Check(text)
	var ae *schemas.AnswerError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ae) && ae.NotJSON:
		err = fmt.Errorf("not JSON, so it does not match the schema %s: %s", sc.Name, ae.Detail)
	case errors.As(err, &ae):
		err = fmt.Errorf("does not match the schema %s:\n%s", sc.Name, ae.Detail)
	}
	return &transcript.InputError{Field: "answer", Err: err}
}
