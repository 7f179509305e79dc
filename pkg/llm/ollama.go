package llm

// The transport of Ollama's native chat endpoint, POST {host}/api/chat:
//   https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
// Streaming ("stream": true, Ollama's default) sends one JSON object per
// line: message.content, message.thinking and message.tool_calls pieces
// while "done" is false, then a last object with done true, done_reason and
// the counters. An {"error": "..."} object reports a failure, also
// mid-stream.

import (
	"bufio"
	"encoding/json"
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
		accept: "application/x-ndjson", assemble: assembleOllama}, nil
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

// assembleOllama reads a streamed chat answer and returns the body the same
// call returns without streaming: the last object, its message holding the
// whole content, thinking and every tool call.
func assembleOllama(r io.Reader, onText func(string)) ([]byte, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxBody), 64<<10)
	var content, thinking strings.Builder
	var calls []json.RawMessage
	for {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var chunk struct {
				Message *struct {
					Content   string            `json:"content"`
					Thinking  string            `json:"thinking"`
					ToolCalls []json.RawMessage `json:"tool_calls"`
				} `json:"message"`
				Done  bool            `json:"done"`
				Error json.RawMessage `json:"error"`
			}
			if jerr := json.Unmarshal(line, &chunk); jerr != nil {
				return nil, badStream("ollama", jerr)
			}
			if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
				return nil, streamError("ollama", line)
			}
			if m := chunk.Message; m != nil {
				content.WriteString(m.Content)
				thinking.WriteString(m.Thinking)
				calls = append(calls, m.ToolCalls...)
				onText(m.Content)
			}
			if chunk.Done {
				return ollamaDone(line, content.String(), thinking.String(), calls)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil, errTruncated
		}
		if err != nil {
			return nil, err
		}
	}
}

// ollamaDone is the last object of a stream with the assembled message in.
func ollamaDone(last []byte, content, thinking string, calls []json.RawMessage) ([]byte, error) {
	var out map[string]json.RawMessage
	if err := json.Unmarshal(last, &out); err != nil {
		return nil, badStream("ollama", err)
	}
	msg := map[string]json.RawMessage{}
	if m, ok := out["message"]; ok {
		_ = json.Unmarshal(m, &msg)
	}
	set := func(k string, v any) {
		msg[k], _ = format.MarshalNoEscape(v)
	}
	if _, ok := msg["role"]; !ok {
		set("role", "assistant")
	}
	set("content", content)
	if thinking != "" {
		set("thinking", thinking)
	} else {
		delete(msg, "thinking")
	}
	if len(calls) > 0 {
		set("tool_calls", calls)
	} else {
		delete(msg, "tool_calls")
	}
	var err error
	if out["message"], err = format.MarshalNoEscape(msg); err != nil {
		return nil, err
	}
	return format.MarshalNoEscape(out)
}
