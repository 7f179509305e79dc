package llm

// The Chat Completions transport (OpenAI, and OpenAI-compatible servers:
// vLLM, llama.cpp server): POST {base}/chat/completions, the key as
// "Authorization: Bearer". A stream is server-sent events, assembled by
// pkg/format (openai_stream.go).

import (
	"net/http"

	"github.com/convo-cli/convo/pkg/format"
)

// newOpenAI is the Chat Completions transport, of OpenAI or of any
// compatible server opts.BaseURL names (the key is then optional: local
// servers take none).
func newOpenAI(p format.Provider, opts Options) (Transport, error) {
	if opts.APIKey == "" && opts.BaseURL == "" {
		return nil, missingKey(p)
	}
	base, err := baseURL(p, opts)
	if err != nil {
		return nil, err
	}
	header := bearer(opts.APIKey)
	return &httpTransport{name: p.Name, opts: opts, url: endpoint(base, "chat/completions"), header: header,
		accept: "text/event-stream", assemble: sseStream(p)}, nil
}

// bearer is the header of a key sent as a bearer token (OpenAI, and a proxy
// in front of Ollama); no key, no header.
func bearer(key string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}
