// Package llm is the transport layer behind every command that calls a
// model (ask, summarize): for each provider pkg/format's registry marks
// callable, the endpoint, the authentication, the framing of a stream (SSE,
// NDJSON, AWS event-stream frames), one retry policy (backoff, Retry-After,
// a rate hook) and key redaction.
//
// It never builds or reads a request or response body: pkg/format renders
// the body (format.Render), assembles a stream's events into the body the
// same call returns without streaming (format.StreamAssembler) and parses
// the answer (format.ParseResponse), so that a provider gets the same
// request from every command. The
// registry gives each transport its endpoint and environment names.
//
// Errors a Transport returns: *format.ProviderError when the call failed
// after the retries its policy allows (a 2xx response is returned whatever
// its body says: reading it is format's job), the context's error when ctx
// is cancelled. No error text, log line or reply ever holds the API key.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/convo-cli/convo/pkg/format"
)

// Call is one request whose body pkg/format rendered.
type Call struct {
	// Model names the model where the endpoint takes it in the URL
	// (format.Provider.ModelInURL: gemini); the body names it for the others.
	Model string
	// Body is the provider's JSON request body.
	Body []byte
	// Betas are anthropic beta features this body uses (its compaction
	// block: format.Renderer.Betas), added to the anthropic-beta header.
	Betas []string
	// OnText, when set, streams the answer: the body must ask for a stream
	// (format.Request.Stream), and each piece of the answer's text is passed
	// on as it arrives. A failure after some text was passed on is not
	// retried: the text cannot be taken back.
	OnText func(text string)
}

// Reply is the answer to a Call.
type Reply struct {
	// Body is the provider's response body. A streamed answer is assembled
	// from its events into the body the same call returns without
	// streaming, so that one parser reads both and what is stored does not
	// depend on streaming. The API key never appears in it.
	Body []byte
	// Streamed says Body was assembled from a stream.
	Streamed bool
}

// Transport sends request bodies to one provider. Send is safe for
// concurrent use; see the package comment for its errors.
type Transport interface {
	Send(ctx context.Context, c Call) (Reply, error)
	// Name is the provider's name in format's registry.
	Name() string
}

// SleepFunc waits d or until ctx is done. Tests inject one to see the delays
// the retry policy asks for without waiting them.
type SleepFunc func(ctx context.Context, d time.Duration) error

// Options configures a transport. Reading the environment or a config file
// is the caller's job (see FromEnv); zero values take the defaults named
// here.
type Options struct {
	APIKey string
	// Secrets are other keys to hide wherever the provider might echo
	// them (FromEnv sets every key variable of the registry); APIKey is
	// always hidden.
	Secrets []string
	// BaseURL replaces the provider's endpoint root (format.Provider.BaseURL):
	// for openai the part before /chat/completions (/responses for
	// openai-responses), for anthropic the part
	// before /v1/messages, for gemini the part before /v1beta/models/...,
	// for ollama the part before /api/chat, for bedrock the part before
	// /model/M/converse.
	BaseURL string
	// HTTPClient sends the requests; nil uses a plain http.Client. Its own
	// Timeout, if any, still applies, but Timeout below is the one to set.
	HTTPClient *http.Client
	// Timeout bounds each attempt (default DefaultTimeout); a timed-out
	// attempt is retried. A streaming call may take longer: there it
	// bounds the wait for the response and every silence in the stream.
	Timeout time.Duration
	Retry   RetryPolicy
	// Sleep waits between attempts; nil waits for real.
	Sleep SleepFunc
	// Logger, when set, hears about each retry: provider, attempt, status,
	// delay and the (redacted) error; never the key, request or answer.
	Logger *slog.Logger
	// Limit, when set, is called before every attempt, retries included,
	// and may delay it (a rate limiter shared through the store, say); an
	// error from it ends the call.
	Limit func(ctx context.Context) error
	// Region and Credentials are bedrock's: the AWS region requests are
	// signed for (and sent to, when BaseURL is unset) and the credentials
	// that sign them. Unset, each comes from the AWS chain (AWS_REGION,
	// AWS_ACCESS_KEY_ID..., AWS_PROFILE and the shared files, SSO, the
	// instance role) as every AWS SDK reads it.
	Region      string
	Credentials aws.CredentialsProvider
	// APIVersion is the provider's API version sent with each request
	// (anthropic's anthropic-version), "" for the registry's default
	// (format.Provider.APIVersions).
	APIVersion string
	// Betas are anthropic's beta features the requests use, sent as the
	// anthropic-beta header (on-demand compaction's compact-2026-09-04).
	Betas []string
	// Compact sends openai-responses requests to POST {base}/responses/compact
	// (the provider's compaction, a summarizer) instead of {base}/responses.
	Compact bool
}

// DefaultTimeout bounds one attempt: long enough for a model to answer
// about a long transcript, short enough that a hung server is noticed.
const DefaultTimeout = 2 * time.Minute

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o Options) httpClient() *http.Client {
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return keepKeysHome(hc)
}

// New returns the transport of the named provider: one the registry marks
// callable. A missing key is an error wrapping ErrMissingKey.
func New(provider string, opts Options) (Transport, error) {
	p, ok := format.Lookup(provider)
	if !ok || !p.CanDo(format.CanCall) {
		return nil, fmt.Errorf("llm: unknown provider %q (want one of %s)", provider, format.NameList(format.CanCall))
	}
	switch provider {
	case "openai":
		return newOpenAI(p, opts)
	case "openai-responses":
		return newOpenAIResponses(p, opts)
	case "anthropic":
		return newAnthropic(p, opts)
	case "gemini":
		return newGemini(p, opts)
	case "ollama":
		return newOllama(p, opts)
	case "bedrock":
		return newBedrock(p, opts)
	}
	// A provider the registry marks callable needs its transport file.
	return nil, fmt.Errorf("llm: no transport for provider %q", provider)
}

// FromEnv reads the key and endpoint of provider through getenv (os.Getenv,
// or a lookup in the config file), under the names the registry gives:
// GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL, OPENAI_API_KEY and
// OPENAI_BASE_URL, ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, OLLAMA_HOST,
// AWS_BEARER_TOKEN_BEDROCK and AWS_ENDPOINT_URL_BEDROCK_RUNTIME; every
// provider's key goes to Secrets, so that none is ever shown. Other fields
// are left for the caller (bedrock's region and credentials for the AWS
// chain).
func FromEnv(provider string, getenv func(string) string) Options {
	p, _ := format.Lookup(provider)
	var o Options
	if p.BaseURLEnv != "" {
		o.BaseURL = getenv(p.BaseURLEnv)
	}
	if p.KeyEnv != "" {
		o.APIKey = getenv(p.KeyEnv)
	}
	o.Secrets = KnownKeys(getenv)
	return o
}

// ErrMissingKey is wrapped by the error New returns when the provider needs
// an API key and Options has none.
var ErrMissingKey = errors.New("no API key")

func missingKey(p format.Provider) error {
	return fmt.Errorf("%s: %w (set %s)", p.Name, ErrMissingKey, p.KeyEnv)
}

// baseURL is opts.BaseURL, or the provider's default, checked to be an
// absolute URL.
func baseURL(p format.Provider, opts Options) (string, error) {
	base := opts.BaseURL
	if base == "" {
		base = p.BaseURL
	}
	if u, err := url.Parse(base); err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("%s: base URL %q is not an absolute URL", p.Name, base)
	}
	return base, nil
}

// redactor hides the options' key and every other secret they name.
func (o Options) redactor() Redactor {
	return NewRedactor(append([]string{o.APIKey}, o.Secrets...)...)
}
