package llm_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/convo-cli/convo/pkg/llm"
)

// How a command builds a client from --provider, --model, --base-url and the
// environment, and tells the failures apart.
func Example() {
	provider, model, baseURL := "openai", "", "" // from flags
	opts := llm.FromEnv(provider, os.Getenv)
	if model != "" {
		opts.Model = model
	}
	if baseURL != "" {
		opts.BaseURL = baseURL
	}
	client, err := llm.New(provider, opts)
	if errors.Is(err, llm.ErrMissingKey) {
		fmt.Println("usage error:", err) // exit 2, naming the variable
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := client.Complete(context.Background(), llm.Request{
		System:   "Summarize the conversation.",
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "..."}},
	})
	var incomplete *llm.IncompleteError
	var failed *llm.Error
	switch {
	case errors.As(err, &incomplete):
		fmt.Println("cut short:", incomplete.Reason) // resp holds what arrived
	case errors.As(err, &failed):
		fmt.Println("failed:", failed.Message, "retryable:", failed.Retryable)
	case err != nil:
		fmt.Println(err) // cancelled, or a bad request
	default:
		fmt.Println(resp.Text, resp.Usage.OutputTokens)
	}
}
