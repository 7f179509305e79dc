package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/format"
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

// sleeps records the delays the retry policy asks for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// TestRun drives the retry loop with scripted attempts.
func TestRun(t *testing.T) {
	e429 := func() error {
		return &format.ProviderError{Provider: "p", Status: 429, Retryable: true, RetryAfter: 3 * time.Second}
	}
	e400 := func() error { return &format.ProviderError{Provider: "p", Status: 400} }
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
		{"unknown error is final", []func() error{func() error { return errors.New("bad URL") }, ok}, 1, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sl := &sleeps{}
			o := Options{Sleep: sl.sleep}
			n := 0
			_, err := o.run(context.Background(), "p", Redactor{}, func(context.Context) ([]byte, error) {
				n++
				return nil, tc.script[n-1]()
			})
			if n != tc.attempts || len(sl.get()) != tc.slept || (err != nil) != tc.wantErr {
				t.Errorf("attempts %d, slept %v, err %v", n, sl.get(), err)
			}
			var e *format.ProviderError
			if errors.As(err, &e) && e.Attempts != n {
				t.Errorf("Attempts = %d, made %d", e.Attempts, n)
			}
		})
	}
}

// TestStatusError: the message of a non-2xx response is what its error
// body says, through format's one reader; the status names the rest.
func TestStatusError(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "7")
	e := statusError("openai", 429, h, []byte(`{"error":{"message":"Rate limit reached","type":"requests"}}`))
	if e.Message != "Rate limit reached" || !e.Retryable || e.RetryAfter != 7*time.Second {
		t.Errorf("%+v", e)
	}
	if e := statusError("openai", 502, nil, nil); e.Message != "Bad Gateway" || !e.Retryable {
		t.Errorf("%+v", e)
	}
	if e := statusError("anthropic", 400, nil, []byte("<html>nope</html>")); e.Message != "<html>nope</html>" || e.Retryable {
		t.Errorf("%+v", e)
	}
}

func FuzzRetryAfter(f *testing.F) {
	f.Add("7", "")
	f.Add("Wed, 16 Apr 2025 12:00:30 GMT", "")
	f.Add("", "1500")
	now := time.Date(2025, 4, 16, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := make(map[string][]string)
		h["Retry-After"], h["Retry-After-Ms"] = []string{ra}, []string{ms}
		if d := retryAfter(h, now); d < 0 {
			t.Fatalf("negative delay %v", d)
		}
	})
}
