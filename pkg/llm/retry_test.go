package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 4, 16, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{map[string]string{"Retry-After": " 120 "}, 2 * time.Minute},
		{map[string]string{"Retry-After": "0"}, 0},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "99999999999999999999"}, 0},
		{map[string]string{"Retry-After": "Wed, 16 Apr 2025 12:00:30 GMT"}, 30 * time.Second},
		{map[string]string{"Retry-After": "Wednesday, 16-Apr-25 12:01:00 GMT"}, time.Minute}, // RFC 850
		{map[string]string{"Retry-After": "Wed, 16 Apr 2025 11:00:00 GMT"}, 0},               // past
		{map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestDelay(t *testing.T) {
	p := RetryPolicy{}.withDefaults()
	if p.MaxAttempts != 4 || p.BaseDelay != time.Second || p.MaxDelay != time.Minute {
		t.Errorf("defaults = %+v", p)
	}
	for _, tc := range []struct {
		attempt int
		asked   time.Duration
		rnd     float64
		want    time.Duration
	}{
		{1, 0, 0.5, 500 * time.Millisecond}, // ceiling 1s
		{2, 0, 0.5, time.Second},            // ceiling 2s
		{3, 0, 0.999, 3996 * time.Millisecond},
		{3, 0, 0, 0},
		{10, 0, 0.5, 30 * time.Second},  // ceiling capped at MaxDelay
		{100, 0, 0.5, 30 * time.Second}, // no overflow
		{1, 7 * time.Second, 0.9, 7 * time.Second},
		{1, time.Hour, 0.9, time.Minute}, // Retry-After capped too
	} {
		if got := p.delay(tc.attempt, tc.asked, tc.rnd); got != tc.want {
			t.Errorf("delay(%d, %v, %v) = %v, want %v", tc.attempt, tc.asked, tc.rnd, got, tc.want)
		}
	}
}

func TestTransportError(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		err       error
		retryable bool
	}{
		{fmt.Errorf("Post: %w", context.DeadlineExceeded), true},
		{fmt.Errorf("doRequest: %w", refused), true},
		{io.ErrUnexpectedEOF, true},
		{&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}}, false},
		{errors.New("unsupported protocol scheme"), false},
	} {
		if got := transportError("p", tc.err, time.Second).Retryable; got != tc.retryable {
			t.Errorf("%v: retryable = %v", tc.err, got)
		}
	}
}

// TestRun drives the retry loop with scripted attempts.
func TestRun(t *testing.T) {
	e429 := func() error { return &Error{Provider: "p", Status: 429, Retryable: true, RetryAfter: 3 * time.Second} }
	e400 := func() error { return &Error{Provider: "p", Status: 400} }
	ok := func() error { return nil }
	for _, tc := range []struct {
		name     string
		script   []func() error
		attempts int // attempts made
		slept    int
		wantErr  bool
	}{
		{"first try", []func() error{ok}, 1, 0, false},
		{"429 then ok", []func() error{e429, ok}, 2, 1, false},
		{"429 until the cap", []func() error{e429, e429, e429, e429, ok}, 4, 3, true},
		{"400 is final", []func() error{e400, ok}, 1, 0, true},
		{"incomplete is final", []func() error{func() error { return &IncompleteError{Reason: "length"} }, ok}, 1, 0, true},
		{"unknown error is final", []func() error{func() error { return errors.New("bad URL") }, ok}, 1, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sl := &sleeps{}
			o := Options{Sleep: sl.sleep}
			n := 0
			_, err := o.run(context.Background(), "p", "", func(context.Context) (Response, error) {
				n++
				return Response{}, tc.script[n-1]()
			})
			if n != tc.attempts || len(sl.get()) != tc.slept || (err != nil) != tc.wantErr {
				t.Errorf("attempts %d, slept %v, err %v", n, sl.get(), err)
			}
			var e *Error
			if errors.As(err, &e) && e.Attempts != n {
				t.Errorf("Attempts = %d, made %d", e.Attempts, n)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{Provider: "openai", Status: 429, Message: "Rate limit reached", Attempts: 4}, "openai: HTTP 429: Rate limit reached (after 4 attempts)"},
		{&Error{Provider: "gemini", Message: "no response within 1s", Attempts: 1}, "gemini: no response within 1s"},
		{&Error{Provider: "anthropic", Err: io.ErrUnexpectedEOF, Attempts: 2}, "anthropic: unexpected EOF (after 2 attempts)"},
		{&Error{Provider: "exec"}, "exec: request failed"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	inc := &IncompleteError{Provider: "gemini", Reason: "SAFETY"}
	if got := inc.Error(); got != "gemini: answer incomplete: SAFETY" {
		t.Errorf("IncompleteError = %q", got)
	}
}

func TestJSONErrorMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"Invalid model","type":"invalid_request_error"}}`:        "Invalid model",
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: "Overloaded",
		`{"error":"model \"x\" not found, try pulling it first"}`:                     `model "x" not found, try pulling it first`,
		`{"object":"error","message":"The model does not exist.","code":404}`:         "The model does not exist.",
		`{"detail":"Not Found"}`:                        "Not Found",
		"<html>\n  <body>Bad   gateway</body>\n</html>": "<html> <body>Bad gateway</body> </html>",
		`{"foo":1}`: `{"foo":1}`,
	} {
		if got := jsonErrorMessage([]byte(body)); got != want {
			t.Errorf("jsonErrorMessage(%s) = %q, want %q", body, got, want)
		}
	}
}

var timeZero = time.Date(2025, 4, 16, 12, 0, 0, 0, time.UTC)
