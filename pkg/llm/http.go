package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/format"
)

// maxBody bounds a response body read into memory: far above any real
// answer, low enough that a runaway server cannot exhaust memory.
const maxBody = format.MaxResponseBytes

// endpoint joins a base URL and a path without doubling or dropping the
// slash between them. The path goes on the base's path, before any query
// the base carries (Azure's ?api-version=, a gateway's key), which is kept
// as given; a fragment, which no request sends, is dropped.
func endpoint(base, path string) string {
	root, query := splitQuery(base)
	return strings.TrimRight(root, "/") + "/" + strings.TrimLeft(path, "/") + query
}

// splitQuery cuts a URL before its query: the rest, and "?QUERY" (""
// for none, or an empty one). A fragment is dropped.
func splitQuery(u string) (root, query string) {
	u, _, _ = strings.Cut(u, "#")
	root, q, _ := strings.Cut(u, "?")
	if q != "" {
		query = "?" + q
	}
	return root, query
}

// httpTransport is what the plain HTTP transports share: one URL, the
// authentication headers, and for a stream the Accept type and its framing,
// which hands the events to the provider's format.StreamAssembler.
type httpTransport struct {
	name   string
	opts   Options
	url    string
	header http.Header
	accept string // of a stream
	// assemble frames a stream (sseStream, ndjsonStream) for pkg/format
	// to assemble, passing text on through onText, and returns the body
	// the same call makes without streaming.
	assemble func(r io.Reader, onText func(string)) ([]byte, error)
}

func (t *httpTransport) Name() string { return t.name }

// Send implements Transport.
func (t *httpTransport) Send(ctx context.Context, c Call) (Reply, error) {
	hc := t.opts.httpClient()
	header := t.header
	if len(c.Betas) > 0 && t.name == "anthropic" {
		header = withBetas(header, c.Betas)
	}
	return t.opts.send(ctx, t.name, c, func(ctx context.Context, onText func(string), progress func()) ([]byte, error) {
		if onText == nil {
			return post(ctx, hc, t.name, t.url, "application/json", header, c.Body)
		}
		res, err := postStream(ctx, hc, t.name, t.url, t.accept, header, c.Body)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		return t.assemble(progressReader{res.Body, progress}, onText)
	})
}

// post makes one attempt: it POSTs body to url and returns the body of a
// 2xx response. Any other status is a *format.ProviderError.
func post(ctx context.Context, hc *http.Client, provider, url, accept string, header http.Header, body []byte) ([]byte, error) {
	res, err := postStream(ctx, hc, provider, url, accept, header, body)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(io.LimitReader(res.Body, maxBody))
}

// postStream makes one attempt and returns the response of a 2xx status,
// its body still to read. Any other status is a *format.ProviderError whose
// message the provider's error body gives.
func postStream(ctx context.Context, hc *http.Client, provider, url, accept string, header http.Header, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &format.ProviderError{Provider: provider, Message: "bad base URL", Err: err}
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	res, err := hc.Do(req)
	if err != nil {
		return nil, err // run classifies it
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		defer res.Body.Close()
		data, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
		if err != nil {
			return nil, err
		}
		return nil, statusError(provider, res.StatusCode, res.Header, data)
	}
	return res, nil
}

// withBetas is h with betas added to its anthropic-beta header, each once.
func withBetas(h http.Header, betas []string) http.Header {
	h = h.Clone()
	have := strings.Split(h.Get("anthropic-beta"), ",")
	for _, b := range betas {
		if !slices.Contains(have, b) {
			have = append(have, b)
		}
	}
	h.Set("anthropic-beta", strings.Trim(strings.Join(have, ","), ","))
	return h
}
