package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/retry"
)

// RetryPolicy says how often and how long to wait before trying a failed
// call again. Only transient failures are retried: HTTP 429 and 5xx,
// timeouts and connection errors; any other 4xx and a stream that does not
// decode are final at once. What a 2xx body says is not the transport's to
// judge: an incomplete answer is never retried.
type RetryPolicy struct {
	// MaxAttempts counts every request, the first included (default 4;
	// 1 turns retries off).
	MaxAttempts int
	// BaseDelay is the ceiling of the first backoff (default 1s); the ceiling
	// doubles at each attempt and the wait is drawn uniformly below it (full
	// jitter, so that many clients failing together do not retry together).
	BaseDelay time.Duration
	// MaxDelay caps any one wait, a provider's Retry-After included
	// (default 60s).
	MaxDelay time.Duration
}

// Retry defaults.
const (
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = time.Minute
)

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	return p
}

// delay is the wait after the attempt-th failure: what the provider asked
// for when it did, capped, and otherwise a full-jitter exponential backoff.
// rnd is uniform in [0, 1).
func (p RetryPolicy) delay(attempt int, asked time.Duration, rnd float64) time.Duration {
	if asked > 0 {
		return min(asked, p.MaxDelay)
	}
	ceiling := p.MaxDelay
	if shift := attempt - 1; shift < 32 && p.BaseDelay<<shift < p.MaxDelay && p.BaseDelay<<shift > 0 {
		ceiling = p.BaseDelay << shift
	}
	return time.Duration(rnd * float64(ceiling))
}

// run makes one logical call under the options' timeout and retry policy.
// call is one attempt; it returns a *format.ProviderError for a failure it
// understood (an HTTP status, a bad stream), or a transport error that run
// classifies. red hides the keys in whatever error comes out.
func (o Options) run(ctx context.Context, provider string, red Redactor, call func(context.Context) ([]byte, error)) ([]byte, error) {
	p := o.Retry.withDefaults()
	sleep := o.Sleep
	if sleep == nil {
		sleep = retry.Sleep
	}
	timeout := o.timeout()
	var body []byte
	policy := retry.Policy{
		Attempts: p.MaxAttempts,
		Wait: func(attempt int, err error) time.Duration {
			return p.delay(attempt, err.(*format.ProviderError).RetryAfter, rand.Float64())
		},
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := sleep(ctx, d); err != nil {
				return fmt.Errorf("%s: %w", provider, err)
			}
			return nil
		},
	}
	// Only a *format.ProviderError that says so is tried again; the
	// caller's end and the rate hook's failure, wrapped, are final.
	retryable := func(err error) bool {
		e, ok := err.(*format.ProviderError)
		return ok && e.Retryable
	}
	var retried func(int, error, time.Duration)
	if o.Logger != nil {
		retried = func(attempt int, err error, d time.Duration) {
			o.Logger.Info("provider retry", "provider", provider, "attempt", attempt, "status", err.(*format.ProviderError).Status,
				"delay_ms", d.Milliseconds(), "error", err.Error())
		}
	}
	err := policy.Do(ctx, retryable, retried, func(attempt int) error {
		if o.Limit != nil {
			if err := o.Limit(ctx); err != nil {
				return fmt.Errorf("%s: %w", provider, err)
			}
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		b, err := call(actx)
		cancel()
		if err == nil {
			body = b
			return nil
		}
		if ctx.Err() != nil {
			// The caller gave up: its reason, not a provider failure.
			return fmt.Errorf("%s: %w", provider, ctx.Err())
		}
		var e *format.ProviderError
		if !errors.As(err, &e) {
			e = transportError(provider, err, timeout)
		}
		e.Attempts = attempt
		e.Message = red.String(e.Message)
		e.Err = red.Error(e.Err)
		return e
	})
	if err != nil {
		return nil, err
	}
	return body, nil
}

// transportError classifies an error raised before any HTTP status arrived.
func transportError(provider string, err error, timeout time.Duration) *format.ProviderError {
	e := &format.ProviderError{Provider: provider, Err: err}
	var nerr net.Error
	var operr *net.OpError
	var dnserr *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &nerr) && nerr.Timeout():
		e.Message = fmt.Sprintf("no response within %s", timeout)
		e.Retryable = true
	case errors.As(err, &dnserr) && dnserr.IsNotFound:
		// A misspelt host will not appear by waiting.
	case errors.As(err, &operr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		// Refused, reset, or closed mid-answer: the server may be restarting.
		e.Retryable = true
	}
	return e
}

// statusError is the *format.ProviderError of a non-2xx response: its
// message is what the provider's error body says (format.ErrorMessage),
// else the status's name.
func statusError(provider string, status int, header http.Header, body []byte) *format.ProviderError {
	message, _ := format.ErrorMessage(body)
	if message == "" {
		message = http.StatusText(status)
	}
	return &format.ProviderError{
		Provider:   provider,
		Status:     status,
		Message:    message,
		Retryable:  retryableStatus(status),
		RetryAfter: retryAfter(header, time.Now()),
	}
}

// retryableStatus: 429 (rate limited) and 5xx (including Anthropic's 529
// overloaded) are transient; any other 4xx will fail the same way again.
func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// RetryAfter is retryAfter for another HTTP client of convo's (pkg/otel's).
func RetryAfter(h http.Header, now time.Time) time.Duration { return retryAfter(h, now) }

// retryAfter reads the delay a response asks for: Retry-After in seconds or
// as an HTTP date (RFC 9110, 10.2.3), or OpenAI's retry-after-ms. Zero when
// absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 || secs > 1<<31 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
