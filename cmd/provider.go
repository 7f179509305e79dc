package cmd

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/tokens"
)

// providerOptions are the flags of every command that calls a provider.
type providerOptions struct {
	name    string
	model   string
	baseURL string
	exec    string
	timeout time.Duration
}

func (p *providerOptions) addFlags(cmd *cobra.Command, flag, def string) {
	f := cmd.Flags()
	f.StringVar(&p.name, flag, def, "extractive, gemini, openai, anthropic or exec")
	f.StringVar(&p.model, "model", "", "model name (default: the provider's default)")
	f.StringVar(&p.baseURL, "base-url", "", "provider endpoint (default from GOOGLE_GEMINI_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL)")
	f.StringVar(&p.exec, "exec", "", "with exec: the command line that reads the text on stdin and prints the summary")
	f.DurationVar(&p.timeout, "timeout", 2*time.Minute, "time limit of one provider request")
}

// newSummarizer builds the summarizer --summarizer names.
func (a *App) newSummarizer(p *providerOptions, counter *tokens.Counter) (summarize.Summarizer, error) {
	switch p.name {
	case "extractive":
		return &summarize.Extractive{Counter: counter}, nil
	}
	return nil, usageErrorf("--summarizer %q: want extractive, gemini, openai, anthropic or exec", p.name)
}
