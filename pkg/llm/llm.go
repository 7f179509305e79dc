// Package llm is the one client layer behind every command that calls a
// model (summarize, ask): a neutral request and response, one small client
// per provider, and one retry policy they all share.
//
// Providers: gemini (google.golang.org/genai), openai (any Chat Completions
// endpoint: OpenAI, Ollama's /v1, vLLM, llama.cpp server), ollama (the openai
// client aimed at OLLAMA_HOST), anthropic (Messages API) and exec (a shell
// command: the text on its stdin, the answer from its stdout).
//
// Two ways to call them: Client.Complete takes a neutral Request of text
// turns (summarize); Exchanger.Exchange (exchange.go) sends a request body
// rendered by pkg/format, which owns every provider's wire format (history
// with tool calls and results, tools, answer schemas), and returns the
// response body for pkg/format to parse (ask). Exchange adds the endpoint,
// the authentication, streaming and the retry policy, nothing else.
//
// Errors a Client returns:
//   - *Error: the call failed (HTTP status, timeout, connection, a body that
//     does not decode, an empty answer), after the retries its policy allows;
//   - *IncompleteError: an answer arrived but was cut short or refused; the
//     Response is returned alongside it;
//   - the context's own error when ctx is cancelled.
//
// No error text, log line or Raw field ever holds the API key.
package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Request is one call. Optional fields are zero by default, so fields added
// later (tools, a JSON schema for structured output, a stream callback) do
// not change what existing callers send.
type Request struct {
	// Model overrides Options.Model for this call.
	Model string
	// System is the system prompt; empty sends none.
	System   string
	Messages []Message
	// MaxTokens caps the answer; 0 leaves the provider's default (anthropic,
	// which requires one, then gets DefaultAnthropicMaxTokens).
	MaxTokens int
	// Temperature is sent only when set.
	Temperature *float64
}

// Message is one turn of the conversation the model sees.
type Message struct {
	Role string // RoleUser or RoleAssistant
	Text string
}

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Response is a complete answer.
type Response struct {
	Text string
	// Model is the model that answered, as the provider names it.
	Model string
	// FinishReason is the provider's own value (stop, end_turn, STOP...).
	FinishReason string
	Usage        Usage
	// Raw is the provider's response body, for callers that keep it.
	// Empty for exec.
	Raw []byte
}

// Usage counts tokens as the provider reported them (zero when it did not).
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// Client is a model provider. Complete is safe for concurrent use.
// Streaming, tools and structured output are the Exchanger's (exchange.go),
// a separate interface, so existing Clients keep satisfying this one.
type Client interface {
	// Complete sends req and returns the answer; see the package comment for
	// the errors it returns.
	Complete(ctx context.Context, req Request) (Response, error)
	// Name is the provider's name: gemini, openai, ollama, anthropic, exec.
	Name() string
}

// SleepFunc waits d or until ctx is done. Tests inject one to see the delays
// the retry policy asks for without waiting them.
type SleepFunc func(ctx context.Context, d time.Duration) error

// Options configures a client. Reading the environment or a config file is
// the caller's job (see FromEnv); zero values take the defaults named here.
type Options struct {
	APIKey string
	// BaseURL replaces the provider's endpoint root: for openai the part
	// before /chat/completions (https://api.openai.com/v1), for anthropic the
	// part before /v1/messages (https://api.anthropic.com), for gemini the
	// part before /v1beta/models/... (https://generativelanguage.googleapis.com/).
	BaseURL string
	// Model is the default model; a Request's Model wins over it.
	Model string
	// HTTPClient sends the requests; nil uses a plain http.Client. Its own
	// Timeout, if any, still applies, but Timeout below is the one to set.
	HTTPClient *http.Client
	// Timeout bounds each attempt (default DefaultTimeout); a timed-out
	// attempt is retried. A streaming Exchange may take longer: there it
	// bounds the wait for the response and every silence in the stream.
	Timeout time.Duration
	Retry   RetryPolicy
	// Sleep waits between attempts; nil waits for real.
	Sleep SleepFunc
	// Command is the shell command line of the exec provider.
	Command string
	// Logger, when set, hears about each retry: provider, attempt, status,
	// delay and the (redacted) error; never the key, request or answer.
	Logger *slog.Logger
	// Limit, when set, is called before every attempt, retries included,
	// and may delay it (a rate limiter shared through the store, say); an
	// error from it ends the call.
	Limit func(ctx context.Context) error
}

// DefaultTimeout bounds one attempt: long enough for a model to summarize a
// long transcript, short enough that a hung server is noticed.
const DefaultTimeout = 2 * time.Minute

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o Options) httpClient() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{}
}

func (o Options) model(req Request) string {
	if req.Model != "" {
		return req.Model
	}
	return o.Model
}

// Providers lists the names New accepts.
var Providers = []string{"gemini", "openai", "ollama", "anthropic", "exec"}

// New returns the client of the named provider.
func New(provider string, opts Options) (Client, error) {
	switch provider {
	case "gemini":
		return NewGemini(opts)
	case "openai":
		return NewOpenAI(opts)
	case "ollama":
		return NewOllama(opts)
	case "anthropic":
		return NewAnthropic(opts)
	case "exec":
		return NewExec(opts)
	}
	return nil, fmt.Errorf("llm: unknown provider %q (want one of %s)", provider, strings.Join(Providers, ", "))
}

// KeyEnv names the environment variable that holds provider's API key, or ""
// when the provider needs none.
func KeyEnv(provider string) string {
	switch provider {
	case "gemini":
		return "GEMINI_API_KEY"
	case "openai":
		return "OPENAI_API_KEY"
	case "anthropic":
		return "ANTHROPIC_API_KEY"
	}
	return ""
}

// FromEnv reads the key and endpoint of provider through getenv (os.Getenv,
// or a lookup in the config file): GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL,
// OPENAI_API_KEY and OPENAI_BASE_URL, ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL, OLLAMA_HOST. Other fields are left for the caller.
func FromEnv(provider string, getenv func(string) string) Options {
	var o Options
	switch provider {
	case "gemini":
		o.BaseURL = getenv("GOOGLE_GEMINI_BASE_URL")
	case "openai":
		o.BaseURL = getenv("OPENAI_BASE_URL")
	case "anthropic":
		o.BaseURL = getenv("ANTHROPIC_BASE_URL")
	case "ollama":
		o.BaseURL = ollamaBaseURL(getenv("OLLAMA_HOST"))
	}
	if k := KeyEnv(provider); k != "" {
		o.APIKey = getenv(k)
	}
	return o
}

// ErrMissingKey is wrapped by the error a constructor returns when the
// provider needs an API key and Options has none.
var ErrMissingKey = errors.New("no API key")

func missingKey(provider string) error {
	return fmt.Errorf("%s: %w (set %s)", provider, ErrMissingKey, KeyEnv(provider))
}

// ErrEmptyAnswer is wrapped by the *Error returned when the provider answered
// with no text: an empty summary must never be stored.
var ErrEmptyAnswer = errors.New("empty answer")

// Error is a failed call, after the retries the policy allowed.
type Error struct {
	Provider string
	// Status is the HTTP status, 0 when no response arrived (timeout,
	// connection) or for exec.
	Status int
	// Message is the provider's own explanation, from its error body when it
	// sent one.
	Message string
	// Retryable says the failure was transient (429, 5xx, timeout,
	// connection): trying again later may succeed.
	Retryable bool
	// Attempts is how many requests were made.
	Attempts int
	// RetryAfter is the delay the provider last asked for, if any.
	RetryAfter time.Duration
	// Err is the underlying cause, if any (a net error,
	// context.DeadlineExceeded, ErrEmptyAnswer...).
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d: ", e.Status)
	}
	if e.Message != "" {
		b.WriteString(e.Message)
	} else if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("request failed")
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// IncompleteError is an answer cut short or refused: the output limit
// (length, max_tokens, MAX_TOKENS), a safety or content filter (SAFETY,
// RECITATION, content_filter...), or a refusal. Response holds what arrived.
type IncompleteError struct {
	Provider string
	// Reason is the provider's finish reason ("refusal" for an OpenAI
	// refusal, the block reason when Gemini blocked the prompt).
	Reason   string
	Response Response
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("%s: answer incomplete: %s", e.Provider, e.Reason)
}

// settle turns a decoded answer into what Complete returns: an incomplete
// reason wins over an empty text, which wins over success.
func settle(provider string, resp Response, incomplete string) (Response, error) {
	if incomplete != "" {
		return resp, &IncompleteError{Provider: provider, Reason: incomplete, Response: resp}
	}
	if strings.TrimSpace(resp.Text) == "" {
		return resp, &Error{Provider: provider, Message: ErrEmptyAnswer.Error(), Err: ErrEmptyAnswer}
	}
	return resp, nil
}

// checkRequest rejects what no provider accepts, before anything is sent.
func checkRequest(provider, model string, req Request) error {
	if model == "" && provider != "exec" {
		return fmt.Errorf("%s: no model given", provider)
	}
	if len(req.Messages) == 0 {
		return fmt.Errorf("%s: request has no messages", provider)
	}
	for i, m := range req.Messages {
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return fmt.Errorf("%s: message %d: role %q is neither user nor assistant", provider, i, m.Role)
		}
	}
	return nil
}

// redact removes key from s: a provider may echo the key back in an error
// body, and that text ends up in errors and Raw.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[REDACTED]")
}

func redactBytes(b []byte, key string) []byte {
	if key == "" {
		return b
	}
	return bytes.ReplaceAll(b, []byte(key), []byte("[REDACTED]"))
}

// redactErr keeps err when its text is clean and otherwise replaces it with
// a plain error of the redacted text: losing its type is the lesser harm.
func redactErr(err error, key string) error {
	if err == nil || key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(redact(err.Error(), key))
}
