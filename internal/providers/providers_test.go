package providers

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/summarize"
)

// TestNewSummarizer: --summarizer names extractive, exec or a callable
// provider, whose model defaults to the registry's.
func TestNewSummarizer(t *testing.T) {
	settings := Settings{Getenv: os.Getenv}
	t.Setenv("OPENAI_API_KEY", "sk-test")
	for _, tc := range []struct {
		p       Spec
		want    string // the summarizer's name, or a substring of the usage error
		wantErr bool
	}{
		{Spec{Name: "extractive"}, "extractive", false},
		{Spec{Name: "exec", Exec: "cat"}, "exec", false},
		{Spec{Name: "exec"}, "needs --exec", true},
		{Spec{Name: "openai"}, "openai", false},
		{Spec{Name: "ollama"}, "--summarizer ollama needs --model", true},
		{Spec{Name: "ollama", Model: "llama3.2"}, "ollama", false},
		{Spec{Name: "vercel"}, `unknown provider "vercel": want one of extractive, exec, openai, openai-responses, anthropic, gemini, bedrock, ollama`, true},
	} {
		s, err := settings.Summarizer(tc.p, nil)
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
	if _, err := settings.Summarizer(Spec{Name: "anthropic"}, nil); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	if s, _ := settings.Summarizer(Spec{Name: "openai"}, nil); s.(*summarize.LLM).Model != "gpt-4o-mini" {
		t.Errorf("default model %q", s.(*summarize.LLM).Model)
	}
}

// --rate shared through the store: an own summarizer waits before each
// summary, a provider's transport before each request; both reserve the
// slot of the key ask uses.
func TestSharedRate(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name, model string
		wait        bool // else the transport's limit
		key         string
	}{
		{"extractive", "", true, llm.RateKey("extractive", "")},
		{"exec", "", true, llm.RateKey("exec", "")},
		{"openai", "gpt-4o-mini", false, "openai/gpt-4o-mini"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var keys []string
			slot := func(_ context.Context, key string, pace time.Duration) (time.Time, error) {
				if pace != time.Second {
					t.Errorf("pace %v, want 1s", pace)
				}
				keys = append(keys, key)
				return now, nil
			}
			wait, limit := SharedRate(tc.name, tc.model, time.Second, slot, func() time.Time { return now })
			got := limit
			if tc.wait {
				got = wait
			}
			if (wait != nil) != tc.wait || (limit != nil) == tc.wait || got == nil {
				t.Fatalf("wait %v, limit %v; want the one the summarizer uses", wait != nil, limit != nil)
			}
			if err := got(context.Background()); err != nil || len(keys) != 1 || keys[0] != tc.key {
				t.Fatalf("reserved %q, %v; want the slot of %q", keys, err, tc.key)
			}
		})
	}
}
