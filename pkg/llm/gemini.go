package llm

// Gemini through google.golang.org/genai, the maintained successor of the
// deprecated github.com/google/generative-ai-go:
//   SDK:      https://pkg.go.dev/google.golang.org/genai
//   request:  https://ai.google.dev/api/generate-content#method:-models.generatecontent
//   response: https://ai.google.dev/api/generate-content#generatecontentresponse
//   finish and block reasons: https://ai.google.dev/api/generate-content#FinishReason
//   errors:   https://ai.google.dev/gemini-api/docs/troubleshooting (google.rpc.Status
//             bodies; 429s carry a google.rpc.RetryInfo detail)

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"
)

// Gemini defaults.
const (
	DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com/"
	DefaultGeminiModel   = "gemini-2.5-flash"
)

// Gemini is a client of the Gemini API.
type Gemini struct {
	opts   Options
	client *genai.Client
}

// NewGemini returns a Gemini client; opts.APIKey is required. The SDK never
// reads the environment here: key, backend and base URL are all set.
func NewGemini(opts Options) (*Gemini, error) {
	if opts.APIKey == "" {
		return nil, missingKey("gemini")
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultGeminiBaseURL
	}
	if opts.Model == "" {
		opts.Model = DefaultGeminiModel
	}
	// A copy, so the caller's client keeps its transport.
	hc := *opts.httpClient()
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = recorder{base}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      opts.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: opts.BaseURL},
	})
	if err != nil {
		// The SDK's message may print its whole config, key included.
		msg, _, _ := strings.Cut(err.Error(), "ClientConfig:")
		return nil, fmt.Errorf("gemini: %s", redact(strings.TrimSpace(msg), opts.APIKey))
	}
	return &Gemini{opts: opts, client: client}, nil
}

// Name implements Client.
func (c *Gemini) Name() string { return "gemini" }

// Complete implements Client.
func (c *Gemini) Complete(ctx context.Context, req Request) (Response, error) {
	model := c.opts.model(req)
	if err := checkRequest("gemini", model, req); err != nil {
		return Response{}, err
	}
	contents := make([]*genai.Content, 0, len(req.Messages))
	for _, m := range req.Messages {
		role := genai.RoleUser
		if m.Role == RoleAssistant {
			role = genai.RoleModel
		}
		contents = append(contents, genai.NewContentFromText(m.Text, genai.Role(role)))
	}
	noContinuation := false
	config := &genai.GenerateContentConfig{
		// One request per attempt, so that Raw is the body of the answer
		// and the retry policy alone decides what is sent again.
		AutomaticContinuation: &noContinuation,
	}
	if req.System != "" {
		config.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	if req.MaxTokens > 0 {
		config.MaxOutputTokens = int32(min(req.MaxTokens, 1<<31-1))
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		config.Temperature = &t
	}
	return c.opts.run(ctx, "gemini", c.opts.APIKey, func(ctx context.Context) (Response, error) {
		rec := &capture{}
		out, err := c.client.Models.GenerateContent(context.WithValue(ctx, captureKey{}, rec), model, contents, config)
		if err != nil {
			return Response{}, geminiError(err, rec)
		}
		resp, incomplete := fromGemini(out, redactBytes(rec.body.Bytes(), c.opts.APIKey))
		if resp.Model == "" {
			resp.Model = model
		}
		return settle("gemini", resp, incomplete)
	})
}

// fromGemini reads the first candidate of a response, and the reason it is
// incomplete ("" when it is not): any finish reason but STOP, or a prompt
// blocked before any candidate was made.
func fromGemini(r *genai.GenerateContentResponse, raw []byte) (Response, string) {
	resp := Response{Model: r.ModelVersion, Raw: raw}
	if u := r.UsageMetadata; u != nil {
		// Thinking tokens are generated and billed as output too.
		resp.Usage = Usage{InputTokens: int(u.PromptTokenCount), OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount)}
	}
	if len(r.Candidates) == 0 || r.Candidates[0] == nil {
		if pf := r.PromptFeedback; pf != nil && pf.BlockReason != "" {
			resp.FinishReason = string(pf.BlockReason)
			return resp, resp.FinishReason
		}
		return resp, ""
	}
	cand := r.Candidates[0]
	resp.FinishReason = string(cand.FinishReason)
	if cand.Content != nil {
		var text strings.Builder
		for _, p := range cand.Content.Parts {
			if p != nil && !p.Thought {
				text.WriteString(p.Text)
			}
		}
		resp.Text = text.String()
	}
	switch cand.FinishReason {
	case "", genai.FinishReasonStop, genai.FinishReasonUnspecified:
		return resp, ""
	}
	return resp, resp.FinishReason
}

// geminiError maps what the SDK returned to an *Error when it understood
// the failure, and leaves transport errors for run to classify.
func geminiError(err error, rec *capture) error {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		status := apiErr.Code
		if status == 0 {
			status = rec.status
		}
		e := statusError("gemini", status, rec.header, errorText([]byte(apiErr.Message)))
		e.Err = apiErr
		if e.RetryAfter == 0 {
			e.RetryAfter = retryInfo(apiErr.Details)
		}
		return e
	}
	if rec.status >= 200 && rec.status < 300 && !transportError("gemini", err, 0).Retryable {
		// A 2xx whose body the SDK could not read. Its message ends with
		// the whole body: the first line says enough.
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return &Error{Provider: "gemini", Status: rec.status, Message: "response body does not decode: " + msg, Err: err}
	}
	return err
}

// retryInfo reads the delay a google.rpc.RetryInfo error detail asks for
// ({"@type": ".../google.rpc.RetryInfo", "retryDelay": "37s"}).
func retryInfo(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if dur, err := time.ParseDuration(s); err == nil && dur > 0 {
			return dur
		}
	}
	return 0
}

// The SDK hides the HTTP response it read. recorder, a transport wrapped
// around the caller's, keeps its status, headers (Retry-After) and body
// (Raw) for the attempt whose context carries a capture.
type recorder struct{ base http.RoundTripper }

type captureKey struct{}

type capture struct {
	status int
	header http.Header
	body   bytes.Buffer
	// progress, when set, is called as body bytes arrive (a stream's
	// silence timer, see Options.exchange).
	progress func()
}

func (c *capture) Write(p []byte) (int, error) {
	if c.progress != nil && len(p) > 0 {
		c.progress()
	}
	return c.body.Write(p)
}

func (t recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	rec, ok := req.Context().Value(captureKey{}).(*capture)
	if err != nil || !ok {
		return res, err
	}
	rec.status, rec.header = res.StatusCode, res.Header
	rec.body.Reset()
	res.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(io.LimitReader(res.Body, maxBody), rec), res.Body}
	return res, nil
}
