package summarize

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Compaction is a provider's own compaction as a summarizer (--summarizer
// anthropic-compaction, openai-compaction): the covered records go to the
// provider as the conversation they are (the previous summary first, as
// render sends it), through the one transport, and the summary keeps what
// comes back as a provider compaction does (SPEC section 7): its readable
// text, or transcript.CompactionMarker, and its items as provider data.
//   - anthropic: on-demand compaction, a whole body with
//     "compaction":{"type":"summarize"}; the transport sends the beta header
//     compact-2026-09-04 (llm.Options.Betas). The answer is the compaction
//     block alone.
//   - openai-responses: POST /responses/compact (llm.Options.Compact) with
//     {"model","instructions"?,"input"}; the answer's output, the user
//     messages then the encrypted item, is kept whole. It has no readable
//     text, so the originals must stay (--delete-originals is refused).
//
// The provider writes the summary with its own prompt: --prompt and
// --template do not reach it.
type Compaction struct {
	// Provider is the provider compacting (anthropic, openai-responses);
	// Transport calls it (nil under --dry-run, which calls nothing).
	Provider  string
	Transport llm.Transport
	// Model is the model to ask; "" takes the registry's default.
	Model  string
	Logger *slog.Logger
}

// Name implements Summarizer: anthropic-compaction, openai-compaction.
func (c *Compaction) Name() string { return format.CompactionSummarizer(c.Provider) }

// ReadsRecords implements RecordReader: the provider is sent the records.
func (c *Compaction) ReadsRecords() bool { return true }

// Summarize implements Summarizer.
func (c *Compaction) Summarize(ctx context.Context, in Input) (Output, error) {
	provider := c.Provider
	p, _ := format.Lookup(provider)
	model := cmp.Or(c.Model, p.DefaultModel)
	body, betas, err := compactionBody(provider, model, in)
	if err != nil {
		return Output{}, err
	}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	start := time.Now()
	reply, err := c.Transport.Send(ctx, llm.Call{Model: model, Body: body, Betas: betas})
	var ans *format.Answer
	if err == nil {
		ans, err = format.ParseReply(provider, reply.Body, nil)
	}
	if err == nil && ans.Compaction == nil {
		err = &format.ProviderError{Provider: provider, Status: 200, Message: "the answer holds no compaction"}
	}
	if err != nil {
		log.Info("provider compaction failed", "provider", provider, "model", model, "error", err.Error())
		return Output{}, err
	}
	log.Info("provider compacted", "provider", provider, "model", cmp.Or(ans.Model, model), "latency_ms", time.Since(start).Milliseconds(),
		"input_tokens", ans.Usage.InputTokens, "output_tokens", ans.Usage.OutputTokens)
	out := Output{Text: ans.Compaction.Text, Model: cmp.Or(ans.Model, model),
		InputTokens: ans.Usage.InputTokens, OutputTokens: ans.Usage.OutputTokens, Usage: ans.Usage.Raw}
	if out.Text == "" {
		out.Text = transcript.CompactionMarker
	}
	for _, it := range ans.Compaction.Items {
		out.ProviderData = append(out.ProviderData, transcript.ProviderItem{Provider: provider, Item: it})
	}
	return out, nil
}

// dryRunner is a Summarizer that sends something else than the composed
// text (Compaction): --dry-run prints what it would send.
type dryRunner interface {
	dryRun(in Input) (string, error)
}

// dryRun implements dryRunner: the request body.
func (c *Compaction) dryRun(in Input) (string, error) {
	provider := c.Provider
	p, _ := format.Lookup(provider)
	body, _, err := compactionBody(provider, cmp.Or(c.Model, p.DefaultModel), in)
	return string(body), err
}

// compactionBody renders the covered records for provider's compaction,
// with the anthropic-beta values the body needs.
func compactionBody(provider, model string, in Input) ([]byte, []string, error) {
	req := format.Request{Provider: provider, Model: model, Lenient: true}
	if provider == "anthropic" {
		cm, err := format.ParseContextManagement(provider, "summarize")
		if err != nil {
			return nil, nil, err
		}
		req.Body, req.ContextManagement = true, cm
	}
	var body bytes.Buffer
	r, err := format.NewRenderer(&body, req)
	if err != nil {
		return nil, nil, err
	}
	if in.PreviousSummary != nil {
		if err := r.Add(in.PreviousSummary); err != nil {
			return nil, nil, err
		}
	}
	if err := in.Stream()(func(rec *transcript.Record) error { return r.Add(rec) }); err != nil {
		return nil, nil, err
	}
	if err := r.Close(); err != nil {
		return nil, nil, err
	}
	if req.Body {
		return body.Bytes(), r.Betas(), nil
	}
	// /responses/compact takes the model and the input, not a response's
	// settings (store, include).
	b := bytes.TrimSpace(body.Bytes())
	if len(b) < 2 || b[0] != '{' {
		return nil, nil, errors.New("compaction: no request body")
	}
	m, _ := json.Marshal(model)
	sep := ","
	if string(b) == "{}" {
		sep = ""
	}
	return fmt.Appendf(nil, `{"model":%s%s%s`, m, sep, b[1:]), nil, nil
}
