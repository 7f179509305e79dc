package cmd

import (
	"cmp"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/tokens"
)

// Hidden settings, for tests and for impatient people: the retry policy's
// first backoff ceiling and its cap on any one wait, a provider's
// Retry-After included (Go durations, e.g. 10ms). Not flags: a user has no
// reason to wait less than a provider asks.
const (
	envRetryBaseDelay = "CONVO_RETRY_BASE_DELAY"
	envRetryMaxDelay  = "CONVO_RETRY_MAX_DELAY"
)

// summarizers that are no provider: they take no request body.
var ownSummarizers = []string{"extractive", "exec"}

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
	f.StringVar(&p.name, flag, def, strings.Join(ownSummarizers, ", ")+", a provider: "+format.NameList(format.CanCall)+", or a provider's own compaction: "+strings.Join(format.CompactionSummarizers(), ", "))
	f.StringVar(&p.model, "model", "", "model name (default: the provider's default)")
	f.StringVar(&p.baseURL, "base-url", "", "provider endpoint (default from "+baseURLEnvs()+")")
	f.StringVar(&p.exec, "exec", "", "with exec: the command line that reads the text on stdin and prints the summary")
	f.DurationVar(&p.timeout, "timeout", llm.DefaultTimeout, "time limit of one provider request")
	anthropicVersionFlag(f, &p.anthropicVersion)
	names := append(append(ownSummarizers[:len(ownSummarizers):len(ownSummarizers)], format.Names(format.CanCall)...), format.CompactionSummarizers()...)
	_ = cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(names, cobra.ShellCompDirectiveNoFileComp))
}

// anthropicVersionFlag adds --anthropic-version: the anthropic-version a
// request is sent with and its body written for. Other providers ignore it,
// so that CONVO_ANTHROPIC_VERSION may stay set for every command.
func anthropicVersionFlag(f *pflag.FlagSet, v *string) {
	f.StringVar(v, "anthropic-version", "", "anthropic: the API version (anthropic-version header) the request is written for: "+anthropicVersions())
}

// anthropicVersions lists anthropic's API versions, the default first,
// for help texts.
func anthropicVersions() string {
	p, _ := format.Lookup("anthropic")
	var out []string
	for i, v := range p.APIVersions {
		s := v.Name
		if i == 0 {
			s += " (default)"
		}
		if v.NoTemperature {
			s += " (no --temperature)"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// defaultAnthropicVersion is the anthropic-version a body is written for
// when none is named.
func defaultAnthropicVersion() string {
	p, _ := format.Lookup("anthropic")
	return p.APIVersions[0].Name
}

// apiVersion is the version flag's value for provider: only anthropic has
// versions.
func apiVersion(provider, anthropicVersion string) string {
	if provider == "anthropic" {
		return anthropicVersion
	}
	return ""
}

// baseURLEnvs names the environment variables of the callable providers'
// endpoints, for help texts.
func baseURLEnvs() string {
	var envs []string
	for _, p := range format.Providers(format.CanCall) {
		envs = appendNew(envs, p.BaseURLEnv)
	}
	return strings.Join(envs, ", ")
}

// appendNew appends the names not in list yet: providers may share a
// variable (openai and openai-responses).
func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		if n != "" && !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}

// providerEnvs names the environment variables of the callable providers'
// keys and endpoints, for help texts.
func providerEnvs() string {
	var envs []string
	for _, p := range format.Providers(format.CanCall) {
		envs = appendNew(envs, p.KeyEnv, p.BaseURLEnv)
	}
	return strings.Join(envs, ", ")
}

// newSummarizer builds the summarizer --summarizer names.
func (a *Factory) newSummarizer(p *providerOptions, counter *tokens.Counter) (summarize.Summarizer, error) {
	switch p.name {
	case "extractive":
		return &extractive.Summarizer{Counter: counter}, nil
	case "exec":
		if strings.TrimSpace(p.exec) == "" {
			return nil, exitcode.Usagef("--summarizer exec needs --exec 'CMD'")
		}
		return &summarize.Exec{Command: p.exec, Timeout: p.timeout, Model: p.model}, nil
	}
	if name, ok := format.CompactionProviderOf(p.name); ok {
		// The provider's own compaction, through the same transport.
		prov, _ := format.Lookup(name)
		t, err := a.newTransport(name, p.baseURL, apiVersion(name, p.anthropicVersion), p.timeout, p.limit, func(o *llm.Options) {
			if name == "anthropic" {
				o.Betas = append(o.Betas, format.BetaOnDemandCompaction)
			} else {
				o.Compact = true
			}
		})
		if err != nil {
			return nil, err
		}
		return &summarize.Compaction{Provider: name, Transport: t, Model: cmp.Or(p.model, prov.DefaultModel), Logger: a.logger()}, nil
	}
	prov, ok := format.Lookup(p.name)
	if !ok || !prov.CanDo(format.CanCall) {
		return nil, exitcode.Usagef("unknown provider %q: want one of %s, %s, %s", p.name, strings.Join(ownSummarizers, ", "), format.NameList(format.CanCall), strings.Join(format.CompactionSummarizers(), ", "))
	}
	model := cmp.Or(p.model, prov.DefaultModel)
	if model == "" {
		return nil, exitcode.Usagef("--summarizer %s needs --model", p.name)
	}
	t, err := a.newTransport(p.name, p.baseURL, apiVersion(p.name, p.anthropicVersion), p.timeout, p.limit)
	if err != nil {
		return nil, err
	}
	return &summarize.LLM{Transport: t, Model: model, Logger: a.logger()}, nil
}

// newTransport builds the transport of a provider from the flags, the
// environment and the config file: the same for ask and summarize.
func (a *Factory) newTransport(name, baseURL, version string, timeout time.Duration, limit func(context.Context) error, more ...func(*llm.Options)) (llm.Transport, error) {
	opts := llm.FromEnv(name, a.getenv)
	if baseURL != "" {
		opts.BaseURL = baseURL
	}
	opts.APIVersion = version
	for _, m := range more {
		m(&opts)
	}
	opts.Timeout, opts.Limit, opts.Logger = timeout, limit, a.logger()
	for env, d := range map[string]*time.Duration{envRetryBaseDelay: &opts.Retry.BaseDelay, envRetryMaxDelay: &opts.Retry.MaxDelay} {
		if v := os.Getenv(env); v != "" {
			dur, err := time.ParseDuration(v)
			if err != nil || dur <= 0 {
				return nil, exitcode.Usagef("%s=%q: want a positive duration", env, v)
			}
			*d = dur
		}
	}
	t, err := llm.New(name, opts)
	if errors.Is(err, llm.ErrMissingKey) {
		return nil, &exitcode.UsageError{Err: err}
	}
	if err != nil {
		return nil, exitcode.Usagef("%v", err)
	}
	return t, nil
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
