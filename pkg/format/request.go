package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Request is one request to a provider in neutral terms. Render writes it
// in one pass as the provider's payload: the settings, tools and answer
// schema first, then the system prompt and the messages, streamed.
type Request struct {
	Provider string
	// System is the system prompt, one entry per content string; nil means
	// none. The caller resolves --system against the stored prompt.
	System []string
	// Summary is the text of the latest summary, "" for none. It is added to
	// the system prompt as its own labelled section.
	Summary string
	// NoSummary leaves the summary records fed out (render --no-summary):
	// they set no Summary.
	NoSummary bool
	// Messages is the LLM view for Render: the records after the latest
	// summary, in order (a summary record among them sets Summary). A
	// Renderer takes them one at a time through Add and AddJSON instead.
	Messages []transcript.Record
	// Body writes a whole request body: the settings below, the tools and
	// the answer schema go in it. Without Body only the system and messages
	// fields are written, and the rest must be unset.
	Body bool
	// Model names the model where the body takes it (see
	// Provider.ModelInURL).
	Model string
	// MaxTokens is the output limit; 0 takes the registry's default for the
	// provider (Provider.MaxTokens), which is none for most.
	MaxTokens int
	// Temperature is written only when set.
	Temperature *float64
	// ContextManagement, when set, is a provider-side context management
	// strategy the body carries (contextmgmt.go).
	ContextManagement *ContextManagement
	// APIVersion is the provider's API version the body is written for
	// (Provider.APIVersions; "" the default). A provider without versions
	// ignores it.
	APIVersion string
	// Stream asks for a streamed answer where the body says so (openai,
	// anthropic, ollama; gemini streams by endpoint). The transport must be
	// called for a stream too.
	Stream bool
	// Tools are the functions the model may call.
	Tools []Tool
	// Schema is the JSON Schema the answer must match (structured output);
	// nil for free text. SchemaName names it where the provider wants a
	// name.
	Schema     json.RawMessage
	SchemaName string
	// Lenient repairs what a provider would reject (arguments that are not a
	// JSON object, results without calls) instead of failing, and reports
	// each repair through Warn. A tool call without a result needs no
	// repair: it is sent with the result NoResult.
	Lenient bool
	Warn    func(format string, args ...any)
	// Header, when set, is told each HTTP header the payload needs beyond
	// the provider's usual ones (anthropic-beta, Renderer.Betas), once the
	// payload is written: render names them for the caller who sends it.
	Header func(name, value string)
}

// Check reports what no rendering of req could send: an unknown provider, a
// negative limit, tools or a schema the provider does not take or that are
// malformed. NewRenderer runs it too; a caller runs it first to tell a bad
// request from bad input.
func (req *Request) Check() error {
	p, err := lookup(req.Provider, CanRender)
	if err != nil {
		return err
	}
	_, err = req.check(&p)
	return err
}

// check is Check for a looked-up provider; it returns the schema as the
// provider is sent it.
func (req *Request) check(p *Provider) (json.RawMessage, error) {
	switch {
	case req.MaxTokens < 0:
		return nil, fmt.Errorf("output limit %d: want a positive number", req.MaxTokens)
	case !req.Body && (req.Stream || len(req.Tools) > 0 || len(req.Schema) > 0 || req.ContextManagement != nil):
		return nil, errors.New("streaming, tools, answer schemas and context management need a whole request body")
	case req.ContextManagement != nil && p.Name != "anthropic" && p.Name != openaiResponses:
		return nil, fmt.Errorf("%s: no provider-side context management", p.Name)
	case !p.Tools && (len(req.Tools) > 0 || len(req.Schema) > 0):
		return nil, fmt.Errorf("%s: tools and answer schemas are not supported", p.Name)
	}
	v, err := p.Version(req.APIVersion)
	switch {
	case err != nil:
		return nil, err
	case v != nil && v.NoTemperature && req.Temperature != nil:
		return nil, fmt.Errorf("%s API version %s takes no temperature: drop --temperature, or use another version", p.Name, v.Name)
	}
	for _, t := range req.Tools {
		if !validToolName(t.Name) {
			return nil, fmt.Errorf("tool name %q: want 1 to 64 letters, digits, _ or -", t.Name)
		}
	}
	var schema json.RawMessage
	if len(req.Schema) > 0 {
		var err error
		if schema, err = providerSchema(req.Schema); err != nil {
			return nil, err
		}
	}
	if p.checkTools != nil {
		if err := p.checkTools(req.Tools, schema); err != nil {
			return nil, err
		}
	}
	return schema, nil
}

// Render writes req, its Messages included, as the provider's payload.
func Render(w io.Writer, req Request) error {
	r, err := NewRenderer(w, req)
	if err != nil {
		return err
	}
	for i := range req.Messages {
		if err := r.Add(&req.Messages[i]); err != nil {
			return err
		}
	}
	return r.Close()
}
