package llm

// Chat Completions, as OpenAI documents it and as OpenAI-compatible servers
// (Ollama's /v1, vLLM, llama.cpp server) speak it:
//   request:  https://platform.openai.com/docs/api-reference/chat/create
//   response: https://platform.openai.com/docs/api-reference/chat/object
//   errors:   https://platform.openai.com/docs/guides/error-codes
//   Ollama:   https://github.com/ollama/ollama/blob/main/docs/openai.md

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Endpoints and models used when Options leaves them empty.
const (
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultOpenAIModel   = "gpt-4o-mini"
	DefaultOllamaBaseURL = "http://localhost:11434/v1"
)

// OpenAI is a Chat Completions client.
type OpenAI struct {
	name string
	opts Options
	url  string
	// official is true against api.openai.com, whose newer models take
	// max_completion_tokens and reject max_tokens; compatible servers know
	// only max_tokens.
	official bool
}

// NewOpenAI returns a client of OpenAI, or of any compatible server when
// opts.BaseURL names one (the key is then optional: local servers take none).
func NewOpenAI(opts Options) (*OpenAI, error) {
	if opts.BaseURL == "" {
		if opts.APIKey == "" {
			return nil, missingKey("openai")
		}
		opts.BaseURL = DefaultOpenAIBaseURL
		if opts.Model == "" {
			opts.Model = DefaultOpenAIModel
		}
	}
	return newOpenAI("openai", opts)
}

// NewOllama returns the Chat Completions client of an Ollama server
// (opts.BaseURL, default DefaultOllamaBaseURL; see FromEnv for OLLAMA_HOST).
// The model must be given: only the user knows which ones are pulled.
func NewOllama(opts Options) (*OpenAI, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultOllamaBaseURL
	}
	return newOpenAI("ollama", opts)
}

func newOpenAI(name string, opts Options) (*OpenAI, error) {
	u, err := url.Parse(opts.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an absolute URL", name, opts.BaseURL)
	}
	return &OpenAI{
		name:     name,
		opts:     opts,
		url:      endpoint(opts.BaseURL, "chat/completions"),
		official: u.Hostname() == "api.openai.com",
	}, nil
}

// Name implements Client.
func (c *OpenAI) Name() string { return c.name }

type openaiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openaiRequest struct {
	Model               string          `json:"model"`
	Messages            []openaiMessage `json:"messages"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
}

type openaiResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	// Some compatible servers answer 200 with an error body.
	Error json.RawMessage `json:"error"`
}

// Complete implements Client.
func (c *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	model := c.opts.model(req)
	if err := checkRequest(c.name, model, req); err != nil {
		return Response{}, err
	}
	body := openaiRequest{Model: model, Temperature: req.Temperature}
	if req.System != "" {
		body.Messages = append(body.Messages, openaiMessage{Role: "system", Content: req.System})
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, openaiMessage{Role: m.Role, Content: m.Text})
	}
	if c.official {
		body.MaxCompletionTokens = req.MaxTokens
	} else {
		body.MaxTokens = req.MaxTokens
	}
	data, err := json.Marshal(body)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", c.name, err)
	}
	header := http.Header{}
	if c.opts.APIKey != "" {
		header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	hc := c.opts.httpClient()
	return c.opts.run(ctx, c.name, c.opts.APIKey, func(ctx context.Context) (Response, error) {
		raw, err := postJSON(ctx, hc, c.name, c.url, header, data, jsonErrorMessage)
		if err != nil {
			return Response{}, err
		}
		raw = redactBytes(raw, c.opts.APIKey)
		resp, incomplete, err := decodeOpenAI(c.name, raw)
		if err != nil {
			return Response{}, err
		}
		if resp.Model == "" {
			resp.Model = model
		}
		return settle(c.name, resp, incomplete)
	})
}

// decodeOpenAI reads a chat.completion body: the first choice's text, and
// the reason it is incomplete ("" when it is not).
func decodeOpenAI(provider string, raw []byte) (Response, string, error) {
	var r openaiResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return Response{}, "", badBody(provider, err)
	}
	if len(r.Choices) == 0 && len(r.Error) > 0 && string(r.Error) != "null" {
		return Response{}, "", &Error{Provider: provider, Status: http.StatusOK, Message: jsonErrorMessage(raw)}
	}
	resp := Response{
		Model: r.Model,
		Usage: Usage{InputTokens: r.Usage.PromptTokens, OutputTokens: r.Usage.CompletionTokens},
		Raw:   raw,
	}
	if len(r.Choices) == 0 {
		return resp, "", nil
	}
	ch := r.Choices[0]
	resp.Text = ch.Message.Content
	resp.FinishReason = ch.FinishReason
	switch {
	case ch.Message.Refusal != "":
		return resp, "refusal", nil
	case ch.FinishReason == "length", ch.FinishReason == "content_filter":
		return resp, ch.FinishReason, nil
	}
	return resp, "", nil
}

// jsonErrorMessage finds the message in an error body, in the shapes the
// providers and compatible servers use: {"error":{"message":...}} (OpenAI,
// Anthropic, llama.cpp, Google), {"error":"..."} (Ollama's native API),
// {"message":...} (vLLM), {"detail":...} (FastAPI servers). Anything else is
// shown shortened.
func jsonErrorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil {
		return errorText(body)
	}
	var inner struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
		return inner.Message
	case json.Unmarshal(e.Error, &s) == nil && s != "":
		return s
	case e.Message != "":
		return e.Message
	case json.Unmarshal(e.Detail, &s) == nil && s != "":
		return s
	}
	return errorText(body)
}

// ollamaBaseURL turns OLLAMA_HOST into the root of Ollama's OpenAI-compatible
// API, read as the ollama CLI reads it: a bare host or host:port means http
// and port 11434; a URL keeps its scheme and port.
func ollamaBaseURL(host string) string {
	host = strings.TrimRight(strings.TrimSpace(host), "/")
	if host == "" {
		return ""
	}
	if !strings.Contains(host, "://") {
		hostport, path, _ := strings.Cut(host, "/")
		if _, _, err := net.SplitHostPort(hostport); err != nil {
			hostport = net.JoinHostPort(strings.Trim(hostport, "[]"), "11434")
		}
		host = "http://" + hostport
		if path != "" {
			host += "/" + path
		}
	}
	return host + "/v1"
}
