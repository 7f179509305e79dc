package cmd

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/convo-cli/convo/internal/providers"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
)

// providerOptions are the flags of every command that calls a provider.
type providerOptions struct {
	name    string
	model   string
	baseURL string
	exec    string
	// anthropicVersion is --anthropic-version (see anthropicVersionFlag).
	anthropicVersion string
	timeout          time.Duration
	// limit, when set, is called before every request attempt (--rate).
	limit func(context.Context) error
}

func (p *providerOptions) addFlags(cmd *cobra.Command, flag, def string) {
	f := cmd.Flags()
	f.StringVar(&p.name, flag, def, strings.Join(providers.Own, ", ")+", a provider: "+format.NameList(format.CanCall)+", or a provider's own compaction: "+strings.Join(format.CompactionSummarizers(), ", "))
	f.StringVar(&p.model, "model", "", "model name (default: the provider's default)")
	f.StringVar(&p.baseURL, "base-url", "", "provider endpoint (default from "+providers.BaseURLEnvs()+")")
	f.StringVar(&p.exec, "exec", "", "with exec: the command line that reads the text on stdin and prints the summary")
	f.DurationVar(&p.timeout, "timeout", llm.DefaultTimeout, "time limit of one provider request")
	anthropicVersionFlag(f, &p.anthropicVersion)
	names := append(append(providers.Own[:len(providers.Own):len(providers.Own)], format.Names(format.CanCall)...), format.CompactionSummarizers()...)
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(names, cobra.ShellCompDirectiveNoFileComp))
}

// anthropicVersionFlag adds --anthropic-version: the anthropic-version a
// request is sent with and its body written for. Other providers ignore it,
// so that CONVO_ANTHROPIC_VERSION may stay set for every command.
func anthropicVersionFlag(f *pflag.FlagSet, v *string) {
	f.StringVar(v, "anthropic-version", "", "anthropic: the API version (anthropic-version header) the request is written for: "+providers.AnthropicVersions())
}

// spec is what the flags say of the summarizer to build.
func (p providerOptions) spec() providers.Spec {
	return providers.Spec{Name: p.name, Model: p.model, BaseURL: p.baseURL, Exec: p.exec,
		AnthropicVersion: p.anthropicVersion, Timeout: p.timeout, Limit: p.limit}
}

// providers builds transports and summarizers with the settings of the
// environment and the config file.
func (a *Factory) providers() providers.Settings {
	return providers.Settings{Getenv: a.getenv, Logger: a.logger()}
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
