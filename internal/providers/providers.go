// Package providers builds what calls a provider from a command's flags,
// the environment and the config file: the transport ask and every LLM
// summarizer send through, and the summarizer --summarizer names. It also
// names, from the registry, what the commands' help says of providers.
package providers

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

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
	EnvRetryBaseDelay = "CONVO_RETRY_BASE_DELAY"
	EnvRetryMaxDelay  = "CONVO_RETRY_MAX_DELAY"
)

// Own are the summarizers that are no provider: they take no request body.
var Own = []string{"extractive", "exec"}

// Settings are where a provider's key and endpoint are read, and the log
// its calls write to.
type Settings struct {
	// Getenv reads a setting: the environment, then the config file.
	Getenv func(string) string
	Logger *slog.Logger
}

// Spec is what a command's flags say of the summarizer to build.
type Spec struct {
	Name, Model, BaseURL, Exec string
	AnthropicVersion           string
	Timeout                    time.Duration
	// Limit, when set, is called before every request attempt (--rate).
	Limit func(context.Context) error
}

// Summarizer builds the summarizer p.Name names.
func (s Settings) Summarizer(p Spec, counter *tokens.Counter) (summarize.Summarizer, error) {
	switch p.Name {
	case "extractive":
		return &extractive.Summarizer{Counter: counter}, nil
	case "exec":
		if strings.TrimSpace(p.Exec) == "" {
			return nil, exitcode.Usagef("--summarizer exec needs --exec 'CMD'")
		}
		return &summarize.Exec{Command: p.Exec, Timeout: p.Timeout, Model: p.Model}, nil
	}
	if name, ok := format.CompactionProviderOf(p.Name); ok {
		// The provider's own compaction, through the same transport.
		prov, _ := format.Lookup(name)
		t, err := s.Transport(name, p.BaseURL, APIVersion(name, p.AnthropicVersion), p.Timeout, p.Limit, func(o *llm.Options) {
			if name == "anthropic" {
				o.Betas = append(o.Betas, format.BetaOnDemandCompaction)
			} else {
				o.Compact = true
			}
		})
		if err != nil {
			return nil, err
		}
		return &summarize.Compaction{Provider: name, Transport: t, Model: cmp.Or(p.Model, prov.DefaultModel), Logger: s.Logger}, nil
	}
	prov, ok := format.Lookup(p.Name)
	if !ok || !prov.CanDo(format.CanCall) {
		return nil, exitcode.Usagef("unknown provider %q: want one of %s, %s, %s", p.Name, strings.Join(Own, ", "), format.NameList(format.CanCall), strings.Join(format.CompactionSummarizers(), ", "))
	}
	model := cmp.Or(p.Model, prov.DefaultModel)
	if model == "" {
		return nil, exitcode.Usagef("--summarizer %s needs --model", p.Name)
	}
	t, err := s.Transport(p.Name, p.BaseURL, APIVersion(p.Name, p.AnthropicVersion), p.Timeout, p.Limit)
	if err != nil {
		return nil, err
	}
	return &summarize.LLM{Transport: t, Model: model, Logger: s.Logger}, nil
}

// Transport builds the transport of a provider from the flags, the
// environment and the config file: the same for ask and summarize.
func (s Settings) Transport(name, baseURL, version string, timeout time.Duration, limit func(context.Context) error, more ...func(*llm.Options)) (llm.Transport, error) {
	opts := llm.FromEnv(name, s.Getenv)
	if baseURL != "" {
		opts.BaseURL = baseURL
	}
	opts.APIVersion = version
	for _, m := range more {
		m(&opts)
	}
	opts.Timeout, opts.Limit, opts.Logger = timeout, limit, s.Logger
	for env, d := range map[string]*time.Duration{EnvRetryBaseDelay: &opts.Retry.BaseDelay, EnvRetryMaxDelay: &opts.Retry.MaxDelay} {
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

// SharedRate paces summarizer name (with model) at one request per pace,
// shared by every process using the store whose slot reserves the next
// request slot of a key (store.Store's RateSlot): the key ask uses too
// (llm.RateKey), so one provider's quota paces both commands. An Own
// summarizer waits before each summary (wait); a provider's transport
// before each request, retries included (limit).
func SharedRate(name, model string, pace time.Duration, slot func(ctx context.Context, key string, pace time.Duration) (time.Time, error), now func() time.Time) (wait, limit func(context.Context) error) {
	key := llm.RateKey(name, model)
	shared := llm.SlotLimit(func(ctx context.Context) (time.Time, error) { return slot(ctx, key, pace) }, now, nil)
	if slices.Contains(Own, name) {
		return shared, nil
	}
	return nil, shared
}

// APIVersion is the version flag's value for provider: only anthropic has
// versions.
func APIVersion(provider, anthropicVersion string) string {
	if provider == "anthropic" {
		return anthropicVersion
	}
	return ""
}

// AnthropicVersions lists anthropic's API versions, the default first,
// for help texts.
func AnthropicVersions() string {
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

// DefaultAnthropicVersion is the anthropic-version a body is written for
// when none is named.
func DefaultAnthropicVersion() string {
	p, _ := format.Lookup("anthropic")
	return p.APIVersions[0].Name
}

// BaseURLEnvs names the environment variables of the callable providers'
// endpoints, for help texts.
func BaseURLEnvs() string {
	var envs []string
	for _, p := range format.Providers(format.CanCall) {
		envs = appendNew(envs, p.BaseURLEnv)
	}
	return strings.Join(envs, ", ")
}

// Envs names the environment variables of the callable providers' keys
// and endpoints, for help texts.
func Envs() string {
	var envs []string
	for _, p := range format.Providers(format.CanCall) {
		envs = appendNew(envs, p.KeyEnv, p.BaseURLEnv)
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
