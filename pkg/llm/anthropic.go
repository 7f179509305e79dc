package llm

// The Messages API transport: POST {base}/v1/messages, the key in
// x-api-key with anthropic-version. A stream is server-sent events,
// assembled by pkg/format (anthropic_stream.go).

import (
	"net/http"
	"strings"

	"github.com/convo-cli/convo/pkg/format"
)

// newAnthropic is the Messages API transport; opts.APIKey is required.
func newAnthropic(p format.Provider, opts Options) (Transport, error) {
	if opts.APIKey == "" {
		return nil, missingKey(p)
	}
	base, err := baseURL(p, opts)
	if err != nil {
		return nil, err
	}
	// anthropic-version: the registry's default, or the one asked for
	// (https://docs.anthropic.com/en/api/versioning); the body must be
	// written for the same (format.Request.APIVersion).
	v, err := p.Version(opts.APIVersion)
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	header.Set("x-api-key", opts.APIKey)
	header.Set("anthropic-version", v.Name)
	if len(opts.Betas) > 0 {
		header.Set("anthropic-beta", strings.Join(opts.Betas, ","))
	}
	return &httpTransport{name: p.Name, opts: opts, url: endpoint(base, "v1/messages"), header: header,
		accept: "text/event-stream", assemble: sseStream(p)}, nil
}
