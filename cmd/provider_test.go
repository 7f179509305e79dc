package cmd

import (
	"errors"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/summarize"
)

// TestNewSummarizer: --summarizer names extractive, exec or a callable
// provider, whose model defaults to the registry's.
func TestNewSummarizer(t *testing.T) {
	f, _, _ := testFactory(t, "")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	for _, tc := range []struct {
		p       providerOptions
		want    string // the summarizer's name, or a substring of the usage error
		wantErr bool
	}{
		{providerOptions{name: "extractive"}, "extractive", false},
		{providerOptions{name: "exec", exec: "cat"}, "exec", false},
		{providerOptions{name: "exec"}, "needs --exec", true},
		{providerOptions{name: "openai"}, "openai", false},
		{providerOptions{name: "ollama"}, "--summarizer ollama needs --model", true},
		{providerOptions{name: "ollama", model: "llama3.2"}, "ollama", false},
		{providerOptions{name: "vercel"}, `unknown provider "vercel": want one of extractive, exec, openai, openai-responses, anthropic, gemini, bedrock, ollama`, true},
	} {
		s, err := f.newSummarizer(&tc.p, nil)
		switch {
		case (err != nil) != tc.wantErr:
			t.Errorf("%+v: err %v, want an error: %v", tc.p, err, tc.wantErr)
		case err != nil:
			var ue *exitcode.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
			}
		case s.Name() != tc.want:
			t.Errorf("%+v: %s, want %s", tc.p, s.Name(), tc.want)
		}
	}
	t.Setenv("ANTHROPIC_API_KEY", "")
	if _, err := f.newSummarizer(&providerOptions{name: "anthropic"}, nil); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	if s, _ := f.newSummarizer(&providerOptions{name: "openai"}, nil); s.(*summarize.LLM).Model != "gpt-4o-mini" {
		t.Errorf("default model %q", s.(*summarize.LLM).Model)
	}
}
