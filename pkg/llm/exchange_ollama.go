package llm

// Ollama's native chat endpoint, POST /api/chat:
//   https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
// The request body is pkg/format's "ollama" rendering ("stream": false; the
// answer schema in "format", tools in "tools"). Streaming ("stream": true,
// Ollama's default) sends one JSON object per line: message.content,
// message.thinking and message.tool_calls pieces while "done" is false, then
// a last object with done true, done_reason and the counters. An
// {"error": "..."} object reports a failure, also mid-stream.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultOllamaHost is the root of a local Ollama server's native API.
const DefaultOllamaHost = "http://localhost:11434"

// OllamaChat is a client of Ollama's native /api/chat.
type OllamaChat struct {
	opts Options
	url  string
}

// NewOllamaChat returns an /api/chat client. opts.BaseURL is the server's
// root (default DefaultOllamaHost); the /v1 root of the OpenAI-compatible API
// that FromEnv makes of OLLAMA_HOST is accepted too, and its /v1 dropped.
func NewOllamaChat(opts Options) (*OllamaChat, error) {
	base := strings.TrimRight(opts.BaseURL, "/")
	if base == "" {
		base = DefaultOllamaHost
	}
	base = strings.TrimSuffix(base, "/v1")
	if u, err := url.Parse(base); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("ollama: base URL %q is not an absolute URL", opts.BaseURL)
	}
	opts.BaseURL = base
	return &OllamaChat{opts: opts, url: endpoint(base, "api/chat")}, nil
}

// Name implements Exchanger.
func (c *OllamaChat) Name() string { return "ollama" }

// Exchange implements Exchanger.
func (c *OllamaChat) Exchange(ctx context.Context, x Exchange) (Reply, error) {
	header := http.Header{}
	if c.opts.APIKey != "" {
		header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	body, err := setFields(x.Body, map[string]any{"stream": x.OnText != nil})
	if err != nil {
		return Reply{}, fmt.Errorf("ollama: %w", err)
	}
	hc := c.opts.httpClient()
	return c.opts.exchange(ctx, "ollama", c.opts.APIKey, x, func(ctx context.Context, onText func(string), progress func()) ([]byte, error) {
		if onText == nil {
			return postJSON(ctx, hc, "ollama", c.url, header, body, jsonErrorMessage)
		}
		res, err := postStream(ctx, hc, "ollama", c.url, "application/x-ndjson", header, body, jsonErrorMessage)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		return assembleOllama(progressReader{res.Body, progress}, onText)
	})
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
				return nil, badBody("ollama", jerr)
			}
			if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
				return nil, &Error{Provider: "ollama", Status: http.StatusOK, Message: jsonErrorMessage(line)}
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
		return nil, badBody("ollama", err)
	}
	msg := map[string]json.RawMessage{}
	if m, ok := out["message"]; ok {
		_ = json.Unmarshal(m, &msg)
	}
	set := func(k string, v any) {
		msg[k], _ = encodeJSON(v)
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
	if out["message"], err = encodeJSON(msg); err != nil {
		return nil, err
	}
	return encodeJSON(out)
}
