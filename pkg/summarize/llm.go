package summarize

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/transcript"
)

// LLM summarizes through a provider, the way ask calls it: the request is
// rendered by pkg/format (the instruction as the system prompt, the shaped
// text as the one user message), sent through the same transport, and the
// answer parsed by format.ParseReply. So a provider gets the same endpoint,
// headers, default model and default output limit (the registry's) from
// summarize as from ask; summarize sets no limit of its own.
type LLM struct {
	Transport llm.Transport
	// Model is the model to ask; "" takes the registry's default.
	Model string
	// Logger hears of each call: provider, model, latency, tokens and
	// finish reason, never the text. Nil logs nothing.
	Logger *slog.Logger
}

// Name implements Summarizer.
func (s *LLM) Name() string { return s.Transport.Name() }

// Summarize implements Summarizer. An answer cut short, refused, blocked or
// empty is an error (*format.IncompleteError), never a summary.
func (s *LLM) Summarize(ctx context.Context, in Input) (Output, error) {
	provider := s.Transport.Name()
	p, _ := format.Lookup(provider)
	model := cmp.Or(s.Model, p.DefaultModel)
	if model == "" {
		return Output{}, fmt.Errorf("%s: no model given", provider)
	}
	body, err := requestBody(provider, model, in)
	if err != nil {
		return Output{}, err
	}
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log.Debug("provider call", "provider", provider, "model", model, "bytes", len(body))
	start := time.Now()
	reply, err := s.Transport.Send(ctx, llm.Call{Model: model, Body: body})
	latency := time.Since(start).Milliseconds()
	var ans *format.Answer
	if err == nil {
		ans, err = format.ParseReply(provider, reply.Body, nil)
	}
	attrs := []any{"provider", provider, "model", model, "latency_ms", latency}
	if ans != nil {
		attrs = []any{"provider", provider, "model", cmp.Or(ans.Model, model), "latency_ms", latency,
			"input_tokens", ans.Usage.InputTokens, "output_tokens", ans.Usage.OutputTokens, "finish_reason", ans.FinishReason}
	}
	if err != nil {
		var pe *format.ProviderError
		if errors.As(err, &pe) {
			attrs = append(attrs, "attempts", pe.Attempts, "status", pe.Status)
		}
		// pkg/llm redacts the key from every error it returns.
		log.Info("provider call failed", append(attrs, "error", err.Error())...)
		return Output{}, err
	}
	log.Info("provider answered", attrs...)
	return Output{Text: ans.Text(), Model: cmp.Or(ans.Model, model),
		InputTokens: ans.Usage.InputTokens, OutputTokens: ans.Usage.OutputTokens}, nil
}

// requestBody is the request a provider is sent for in: the instruction as
// the system prompt, the shaped text as the one user message. A live call
// and a batch request line carry the same.
func requestBody(provider, model string, in Input) ([]byte, error) {
	var body bytes.Buffer
	err := format.Render(&body, format.Request{
		Provider: provider, Body: true, Model: model, System: []string{in.Instruction},
		Messages: []transcript.Record{{ID: "text", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{in.Text}}}},
	})
	return body.Bytes(), err
}
