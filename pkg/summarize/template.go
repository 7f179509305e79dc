package summarize

import (
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/convo-cli/convo/pkg/transcript"
)

// DefaultPrompt is the instruction given to an LLM summarizer.
const DefaultPrompt = `You maintain the running summary of a conversation between a user and an AI assistant.
The summary replaces the older messages: the assistant will see only it and the latest messages.

Write the new summary with these sections, in this order, as short bullet points:
## Goal
## Decisions
## Facts and identifiers (names, numbers, dates, URLs, ids, code symbols, copied verbatim)
## Preferences and constraints (what the user asked for or ruled out)
## Tool outcomes and errors
## Open items

If a previous summary is given, carry it forward: keep every point that still holds, update
what changed, add what is new. Do not re-invent or drop it. Do not add facts that are not in
the text. Answer with the summary only, no preamble.`

// TemplateData is what a --template sees.
type TemplateData struct {
	// Previous is the previous summary's text, without its fact ledger ("" if none).
	Previous string
	// PreviousRecord is the previous summary record, or nil.
	PreviousRecord *transcript.Record
	// Records are the records being folded in, in order.
	Records []transcript.Record
}

// DefaultTemplate shapes the covered records into the text a summarizer reads.
const DefaultTemplate = `{{if .Previous}}Previous summary:
{{.Previous}}

{{end}}Messages to fold in:
{{range .Records}}{{template "record" .}}
{{end}}
{{- define "record"}}[{{.Message.Role}}{{with .Message.Name}} {{.}}{{end}}{{if .Message.IsError}} error{{end}}] {{join .Message.Contents "\n"}}{{range .Message.ToolCalls}}
  -> call {{.Name}}({{.Arguments}}){{end}}{{end}}`

// Funcs are the functions a --template may use besides the built-ins.
var Funcs = template.FuncMap{
	"join":  strings.Join,
	"upper": strings.ToUpper,
	"lower": strings.ToLower,
}

// ParseTemplate parses a --template text.
func ParseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(Funcs).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return t, nil
}

var defaultTemplate = sync.OnceValue(func() *template.Template { return template.Must(ParseTemplate("default", DefaultTemplate)) })

func renderText(t *template.Template, p *Plan) (string, error) {
	if t == nil {
		t = defaultTemplate()
	}
	var b strings.Builder
	data := TemplateData{Previous: p.previousText(), PreviousRecord: p.Previous, Records: p.Covered}
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("template %s: %w", t.Name(), err)
	}
	return b.String(), nil
}
