package llm

// The Anthropic Messages API:
//   request and response: https://docs.anthropic.com/en/api/messages
//   versioning header:    https://docs.anthropic.com/en/api/versioning
//   errors:               https://docs.anthropic.com/en/api/errors
//   stop reasons:         https://docs.anthropic.com/en/api/handling-stop-reasons

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Anthropic defaults.
const (
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultAnthropicModel   = "claude-haiku-4-5"
	// AnthropicVersion is the API version sent in anthropic-version.
	AnthropicVersion = "2023-06-01"
	// DefaultAnthropicMaxTokens is sent when Request.MaxTokens is 0: the API
	// requires max_tokens, and 1024 tokens hold a summary or a chat answer.
	DefaultAnthropicMaxTokens = 1024
)

// Anthropic is a Messages API client.
type Anthropic struct {
	opts Options
	url  string
}

// NewAnthropic returns an Anthropic client; opts.APIKey is required.
func NewAnthropic(opts Options) (*Anthropic, error) {
	if opts.APIKey == "" {
		return nil, missingKey("anthropic")
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultAnthropicBaseURL
	}
	if u, err := url.Parse(opts.BaseURL); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("anthropic: base URL %q is not an absolute URL", opts.BaseURL)
	}
	if opts.Model == "" {
		opts.Model = DefaultAnthropicModel
	}
	return &Anthropic{opts: opts, url: endpoint(opts.BaseURL, "v1/messages")}, nil
}

// Name implements Client.
func (c *Anthropic) Name() string { return "anthropic" }

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	System      string             `json:"system,omitempty"`
	Messages    []anthropicMessage `json:"messages"`
	Temperature *float64           `json:"temperature,omitempty"`
}

type anthropicResponse struct {
	Type    string `json:"type"`
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// Complete implements Client.
func (c *Anthropic) Complete(ctx context.Context, req Request) (Response, error) {
	model := c.opts.model(req)
	if err := checkRequest("anthropic", model, req); err != nil {
		return Response{}, err
	}
	body := anthropicRequest{
		Model:       model,
		MaxTokens:   req.MaxTokens,
		System:      req.System,
		Temperature: req.Temperature,
	}
	if body.MaxTokens <= 0 {
		body.MaxTokens = DefaultAnthropicMaxTokens
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, anthropicMessage{Role: m.Role, Content: m.Text})
	}
	data, err := json.Marshal(body)
	if err != nil {
		return Response{}, fmt.Errorf("anthropic: %w", err)
	}
	header := http.Header{}
	header.Set("x-api-key", c.opts.APIKey)
	header.Set("anthropic-version", AnthropicVersion)
	hc := c.opts.httpClient()
	return c.opts.run(ctx, "anthropic", c.opts.APIKey, func(ctx context.Context) (Response, error) {
		raw, err := postJSON(ctx, hc, "anthropic", c.url, header, data, jsonErrorMessage)
		if err != nil {
			return Response{}, err
		}
		raw = redactBytes(raw, c.opts.APIKey)
		resp, incomplete, err := decodeAnthropic(raw)
		if err != nil {
			return Response{}, err
		}
		if resp.Model == "" {
			resp.Model = model
		}
		return settle("anthropic", resp, incomplete)
	})
}

// decodeAnthropic reads a message body: its text blocks joined, and the
// reason it is incomplete ("" when it is not).
func decodeAnthropic(raw []byte) (Response, string, error) {
	var r anthropicResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return Response{}, "", badBody("anthropic", err)
	}
	if r.Type == "error" {
		return Response{}, "", &Error{Provider: "anthropic", Status: http.StatusOK, Message: jsonErrorMessage(raw)}
	}
	var text strings.Builder
	for _, b := range r.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	resp := Response{
		Text:         text.String(),
		Model:        r.Model,
		FinishReason: r.StopReason,
		Usage:        Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens},
		Raw:          raw,
	}
	switch r.StopReason {
	case "max_tokens", "model_context_window_exceeded", "refusal", "pause_turn":
		return resp, r.StopReason, nil
	}
	return resp, "", nil
}
