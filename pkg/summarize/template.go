package summarize

import (
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/convo-cli/convo/pkg/transcript"
)

// DefaultPrompt is the instruction given to an LLM summarizer: a handoff
// note for a model that will see nothing else of the older messages, in
// fixed sections, every identifier copied character for character.
const DefaultPrompt = `You write the running summary of a conversation between a user and an AI assistant.
The summary replaces the older messages: the next model sees only this summary and the latest
messages, so write it as a handoff to a colleague who must carry on without asking again.

Use these sections, in this order, as short bullet points; write "none" under a section with
nothing in it:
## User's goal and requests (what the user asked for, in their own words where it matters; every request, not only the latest)
## Decisions and agreements (what was chosen or ruled out, and by whom)
## Facts and identifiers (names, ids, order and ticket numbers, codes, amounts with their unit, dates, times, addresses, e-mails, phone numbers, URLs, file paths, versions, commands)
## User's preferences and standing instructions (how the user wants things done, limits they set)
## Tool calls, results and errors (what was run or looked up, what came back, what failed and whether it was fixed)
## Current state (what was being worked on in the latest covered messages)
## Open items and next step (what is pending, promised or unanswered, and the next action)

Rules:
- Copy every identifier, number, date, URL, path, code and quoted title exactly as written:
  character for character, same case and punctuation, never shortened, rounded or reworded.
- Say who said what: "the user said", "the assistant proposed", or the speaker's name when
  the messages give one; do not blend the two sides.
- If a previous summary is given, carry it forward: keep every point that still holds,
  update what changed, add what is new; never drop an identifier it holds.
- Do not invent anything that is not in the text. Answer with the summary only, no preamble.`

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
