package llm

// The Responses API transport (OpenAI, and Ollama's /v1/responses): POST
// {base}/responses, the key as "Authorization: Bearer", as for Chat
// Completions. A stream is server-sent events, assembled by pkg/format
// (openairesponses_stream.go).

import (
	"github.com/convo-cli/convo/pkg/format"
)

// newOpenAIResponses is the Responses API transport, of OpenAI or of any
// compatible server opts.BaseURL names (the key is then optional).
func newOpenAIResponses(p format.Provider, opts Options) (Transport, error) {
	if opts.APIKey == "" && opts.BaseURL == "" {
		return nil, missingKey(p)
	}
	base, err := baseURL(p, opts)
	if err != nil {
		return nil, err
	}
	path := "responses"
	if opts.Compact {
		path = "responses/compact"
	}
	return &httpTransport{name: p.Name, opts: opts, url: endpoint(base, path), header: bearer(opts.APIKey),
		accept: "text/event-stream", assemble: sseStream(p)}, nil
}
