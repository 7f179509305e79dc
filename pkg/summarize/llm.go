package summarize

import (
	"context"

	"github.com/convo-cli/convo/pkg/llm"
)

// LLM summarizes through a provider client: the instruction as the system
// prompt, the shaped text as the one user message.
type LLM struct {
	Client llm.Client
	Model  string
}

// Name implements Summarizer.
func (s *LLM) Name() string { return s.Client.Name() }

// Summarize implements Summarizer. The output budget leaves the model room
// to finish: a summary cut at max_tokens is an error, never stored.
func (s *LLM) Summarize(ctx context.Context, in Input) (Output, error) {
	resp, err := s.Client.Complete(ctx, llm.Request{
		Model:     s.Model,
		System:    in.Instruction,
		Messages:  []llm.Message{{Role: llm.RoleUser, Text: in.Text}},
		MaxTokens: max(2*in.MaxTokens, 1024),
	})
	if err != nil {
		return Output{}, err
	}
	model := resp.Model
	if model == "" {
		model = s.Model
	}
	return Output{Text: resp.Text, Model: model}, nil
}
