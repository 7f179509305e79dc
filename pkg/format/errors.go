package format

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ProviderError is the one provider failure: a call that failed after the
// retries its policy allowed (pkg/llm: an HTTP status, a timeout, a dropped
// connection), or an error body (ParseResponse: the provider answered and
// said why it would not).
type ProviderError struct {
	Provider string
	// Status is the HTTP status, 0 when none arrived (timeout, connection)
	// or when the body came from elsewhere (append --from).
	Status int
	// Message is the provider's own explanation, from its error body when
	// it sent one (see ErrorMessage).
	Message string
	// Retryable says the failure was transient (429, 5xx, timeout,
	// connection): trying again later may succeed.
	Retryable bool
	// Attempts is how many requests were made; 0 for an error body read
	// outside a call.
	Attempts int
	// RetryAfter is the delay the provider last asked for, if any.
	RetryAfter time.Duration
	// Err is the underlying cause, if any (a net error,
	// context.DeadlineExceeded...).
	Err error
}

func (e *ProviderError) Error() string {
	if e.Attempts == 0 && e.Status == 0 && e.Err == nil {
		return e.Provider + " error: " + e.Message
	}
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d: ", e.Status)
	}
	switch {
	case e.Message != "":
		b.WriteString(e.Message)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString("request failed")
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *ProviderError) Unwrap() error { return e.Err }

// IncompleteError is an answer that arrived but is no whole answer: cut
// short (output limit, safety or recitation filter, content filter), refused,
// blocked before it began, or empty. Answer holds what did arrive, for a
// caller that keeps it anyway (append --allow-incomplete); ask and summarize
// never store it.
type IncompleteError struct {
	Provider string
	// Reason is the provider's finish reason ("length", "max_tokens",
	// "MAX_TOKENS"...), "refusal" for a refusal, or "blockReason X" for a
	// prompt Gemini blocked.
	Reason string
	Answer *Answer
	// Empty, when set, says that the answer holds nothing at all (no text,
	// no tool call) and what is missing from the body, where the provider
	// puts an answer: `no "text" or "tool_use" block in content`. Such a
	// body is no answer to keep, cut short or not (append --from refuses
	// it as bad input, --allow-incomplete or not).
	Empty  string
	detail string
}

func (e *IncompleteError) Error() string {
	return e.Provider + " answer is incomplete (" + e.Detail() + ")"
}

// Detail says why in a few words: "finish reason length", "finish reason
// refusal ("I'm sorry...")", "prompt blocked (blockReason SAFETY)".
func (e *IncompleteError) Detail() string {
	if e.detail != "" {
		return e.detail
	}
	return "finish reason " + e.Reason
}

// ErrorMessage is the one reader of error bodies: it finds the message in
// the shapes the providers and compatible servers use:
// {"error":{"message":...}} (OpenAI, Anthropic, llama.cpp, Google),
// {"error":"..."} (Ollama), {"message":...} (vLLM, Bedrock), {"detail":...}
// (FastAPI servers). Anything else is shown shortened. isError says the
// body is one: a JSON object with an "error" member.
func ErrorMessage(body []byte) (msg string, isError bool) {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &e) != nil {
		return errorText(body), false
	}
	isError = len(e.Error) > 0 && string(e.Error) != "null"
	var inner struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
		return inner.Message, isError
	case json.Unmarshal(e.Error, &s) == nil && s != "":
		return s, isError
	case e.Message != "":
		return e.Message, isError
	case json.Unmarshal(e.Detail, &s) == nil && s != "":
		return s, isError
	}
	return errorText(body), isError
}

// errorText shortens a body that is not the provider's JSON (an HTML page
// from a proxy, say) to something fit for one line.
func errorText(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	const max = 300
	if len(s) > max {
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	return s
}
