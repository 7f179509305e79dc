package llm

// The transport of Ollama's native chat endpoint, POST {host}/api/chat:
//   https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
// A stream (Ollama's default) is one JSON object per line, assembled by
// pkg/format (ollama_stream.go).

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/convo-cli/convo/pkg/format"
)

// newOllama is the transport of Ollama's native /api/chat. opts.BaseURL is
// the server's root, given as OLLAMA_HOST is (see ollamaHost); a /v1 root
// (the OpenAI-compatible API's) is taken too, its /v1 dropped. A key, when
// given (a proxy in front), goes as a bearer token; Ollama itself takes
// none.
func newOllama(p format.Provider, opts Options) (Transport, error) {
	root, query := splitQuery(opts.BaseURL)
	if root = strings.TrimSuffix(ollamaHost(root), "/v1"); root != "" {
		opts.BaseURL = root + query
	} else {
		opts.BaseURL = "" // the default host
	}
	base, err := baseURL(p, opts)
	if err != nil {
		return nil, err
	}
	header := bearer(opts.APIKey)
	return &httpTransport{name: p.Name, opts: opts, url: endpoint(base, "api/chat"), header: header,
		accept: "application/x-ndjson", assemble: ndjsonStream(p)}, nil
}

// ollamaHost turns OLLAMA_HOST into the root of Ollama's API, read as the
// ollama CLI reads it: a bare host or host:port means http and port 11434;
// a URL keeps its scheme and port.
func ollamaHost(host string) string {
	host = strings.TrimRight(strings.TrimSpace(host), "/")
	if host == "" || strings.Contains(host, "://") {
		return host
	}
	hostport, path, _ := strings.Cut(host, "/")
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		hostport = net.JoinHostPort(strings.Trim(hostport, "[]"), "11434")
	}
	host = "http://" + hostport
	if path != "" {
		host += "/" + path
	}
	return host
}

// ndjsonStream reads a stream of one JSON object per line (Ollama's) into
// p's assembler, blank lines skipped.
func ndjsonStream(p format.Provider) func(io.Reader, func(string)) ([]byte, error) {
	return func(r io.Reader, onText func(string)) ([]byte, error) {
		asm := p.NewStream()
		br := bufio.NewReaderSize(io.LimitReader(r, maxBody), 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				end, aerr := asm.Add("", line, onText)
				if aerr != nil {
					return nil, aerr
				}
				if end {
					return asm.Body()
				}
			}
			if errors.Is(err, io.EOF) {
				return asm.Body()
			}
			if err != nil {
				return nil, err
			}
		}
	}
}
