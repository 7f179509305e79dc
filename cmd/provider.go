package cmd

import (
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/llm"
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
	f.StringVar(&p.name, flag, def, "extractive, gemini, openai, ollama, anthropic or exec")
	f.StringVar(&p.model, "model", "", "model name (default: the provider's default)")
	f.StringVar(&p.baseURL, "base-url", "", "provider endpoint (default from GOOGLE_GEMINI_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL)")
	f.StringVar(&p.exec, "exec", "", "with exec: the command line that reads the text on stdin and prints the summary")
	f.DurationVar(&p.timeout, "timeout", 2*time.Minute, "time limit of one provider request")
}

// newSummarizer builds the summarizer --summarizer names.
func (a *Factory) newSummarizer(p *providerOptions, counter *tokens.Counter) (summarize.Summarizer, error) {
	if p.name == "extractive" {
		return &summarize.Extractive{Counter: counter}, nil
	}
	client, err := a.newClient(p)
	if err != nil {
		return nil, err
	}
	return &summarize.LLM{Client: client, Model: p.model}, nil
}

// newClient builds a provider client from the flags, the environment and
// the config file.
func (a *Factory) newClient(p *providerOptions) (llm.Client, error) {
	if !slices.Contains(llm.Providers, p.name) {
		return nil, usageErrorf("unknown provider %q: want one of %s", p.name, strings.Join(llm.Providers, ", "))
	}
	opts := llm.FromEnv(p.name, a.getenv)
	if p.baseURL != "" {
		opts.BaseURL = p.baseURL
	}
	opts.Model, opts.Command, opts.Timeout = p.model, p.exec, p.timeout
	opts.Logger = a.logger()
	if p.name == "exec" && p.exec == "" {
		return nil, usageErrorf("--summarizer exec needs --exec 'CMD'")
	}
	client, err := llm.New(p.name, opts)
	if errors.Is(err, llm.ErrMissingKey) {
		return nil, &usageError{err}
	}
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return loggedClient{client, a.logger()}, nil
}

// getenv reads a setting from the environment, then from the config file
// (keys like OPENAI_API_KEY may be written in either case there).
func (a *Factory) getenv(key string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	if a.cfg != nil {
		return a.cfg.GetString(strings.ToLower(key))
	}
	return ""
}
