package otel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
)

// Client POSTs batches of spans to an OTLP/HTTP receiver. It is a Sink
// that confirms: Send returns nil once the receiver accepted the batch.
type Client struct {
	Endpoint Endpoint
	Resource Resource
	HTTP     *http.Client // nil: a client with a 30 s timeout
	// Backoff retries what OTLP says is retryable; a zero value takes
	// DefaultBackoff.
	Backoff store.Backoff
	// Rejected and Reason add up the partial successes: spans the receiver
	// accepted the batch of but will never take.
	Rejected int64
	Reason   string
	spans    []byte // the batch's spans: protobuf fields, or JSON comma-separated
	buf      []byte
}

// PartialError is what the receiver took but refused (partial successes,
// never sent again), nil when it refused nothing.
func (c *Client) PartialError() error {
	if c.Rejected == 0 && c.Reason == "" {
		return nil
	}
	reason := ""
	if c.Reason != "" {
		reason = ": " + c.Reason
	}
	return fmt.Errorf("the otlp receiver rejected %d span(s) of batches it accepted (a partial success, not sent again)%s", c.Rejected, reason)
}

// DefaultBackoff tries a batch 6 times over about half a minute, Retry-After
// permitting (each wait it asks is capped at MaxRetryAfter).
var DefaultBackoff = store.Backoff{Attempts: 6, First: 500 * time.Millisecond, Max: 8 * time.Second}

// MaxRetryAfter caps a wait a receiver asks for.
const MaxRetryAfter = 30 * time.Second

// ReceiverError is a batch the receiver did not accept.
type ReceiverError struct {
	URL        string // without user information
	Status     int    // 0: no answer (the connection failed)
	Message    string // what the receiver said, cut short
	Err        error  // the transport's error, when no answer
	retryable  bool
	retryAfter time.Duration
}

func (e *ReceiverError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("otlp receiver %s: %v", e.URL, e.Err)
	}
	msg := fmt.Sprintf("otlp receiver %s: HTTP %d", e.URL, e.Status)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

func (e *ReceiverError) Unwrap() error { return e.Err }

// RetryAfter is what the receiver asked to wait (store.Backoff reads it).
func (e *ReceiverError) RetryAfter() time.Duration { return e.retryAfter }

func (c *Client) Confirms() bool { return true }

// Add encodes s into the batch Send sends.
func (c *Client) Add(s *Span) {
	if !c.Endpoint.JSON {
		c.spans = appendSpanField(c.spans, s)
		return
	}
	if len(c.spans) > 0 {
		c.spans = append(c.spans, ',')
	}
	c.spans = appendSpanJSON(c.spans, s)
}

// Send POSTs the spans added since the last Send as one request, retrying
// 429, 502, 503, 504 and a failed connection; a partial success is
// accepted (it is never retried) and counted in Rejected.
func (c *Client) Send(ctx context.Context) error {
	contentType := "application/x-protobuf"
	if c.Endpoint.JSON {
		c.buf = append(append(appendJSONHead(c.buf[:0], c.Resource), c.spans...), jsonTail...)
		contentType = "application/json"
	} else {
		c.buf = appendProtoRequest(c.buf[:0], c.Resource, c.spans)
	}
	c.spans = c.spans[:0]
	b := c.Backoff
	if b.Attempts == 0 {
		b = DefaultBackoff
	}
	transient := func(err error) bool {
		var re *ReceiverError
		return errors.As(err, &re) && re.retryable
	}
	return b.Do(ctx, transient, nil, func() error { return c.post(ctx, contentType) })
}

func (c *Client) post(ctx context.Context, contentType string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint.URL, bytes.NewReader(c.buf))
	if err != nil {
		return &ReceiverError{URL: redactURL(c.Endpoint.URL), Err: errors.New("not a URL a request can go to")}
	}
	for k, v := range c.Endpoint.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "convo/"+c.Resource.Version)
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var nerr net.Error
		// The url.Error names the URL, which holds no secret (no user
		// information is accepted); headers are never in it.
		return &ReceiverError{URL: redactURL(c.Endpoint.URL), Err: errors.Unwrap(err), retryable: errors.As(err, &nerr) || isConnErr(err)}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 == 2 {
		rejected, reason, err := partialSuccess(body, resp.Header.Get("Content-Type"))
		if err != nil {
			return &ReceiverError{URL: redactURL(c.Endpoint.URL), Status: resp.StatusCode, Message: "an answer that is no ExportTraceServiceResponse: " + err.Error()}
		}
		if rejected > 0 || reason != "" {
			c.Rejected += rejected
			c.Reason = c.redact(reason)
		}
		return nil
	}
	e := &ReceiverError{URL: redactURL(c.Endpoint.URL), Status: resp.StatusCode, Message: c.redact(statusMessage(body, resp.Header.Get("Content-Type")))}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		e.retryable = true
		e.retryAfter = min(llm.RetryAfter(resp.Header, time.Now()), MaxRetryAfter)
	}
	return e
}

// redact hides the headers' values in what a receiver said, should it echo
// them: they are credentials.
func (c *Client) redact(s string) string {
	for _, vs := range c.Endpoint.Header {
		for _, v := range vs {
			if len(v) >= 4 {
				s = strings.ReplaceAll(s, v, "[REDACTED]")
			}
		}
	}
	return s
}

func isConnErr(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// partialSuccess reads an ExportTraceServiceResponse: its partial_success
// (field 1) holds rejected_spans (1) and error_message (2). An empty body
// is a full success.
func partialSuccess(body []byte, contentType string) (int64, string, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return 0, "", nil
	}
	if strings.HasPrefix(contentType, "application/json") {
		var r struct {
			PartialSuccess struct {
				RejectedSpans json.Number `json:"rejectedSpans"`
				ErrorMessage  string      `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&r); err != nil {
			return 0, "", err
		}
		n, _ := strconv.ParseInt(strings.Trim(string(r.PartialSuccess.RejectedSpans), `"`), 10, 64)
		return n, clean(r.PartialSuccess.ErrorMessage), nil
	}
	var n int64
	var msg string
	ps, err := field(body, 1)
	if err != nil || ps == nil {
		return 0, "", err
	}
	for len(ps) > 0 {
		num, typ, l := protowire.ConsumeTag(ps)
		if l < 0 {
			return 0, "", protowire.ParseError(l)
		}
		ps = ps[l:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, l := protowire.ConsumeVarint(ps)
			if l < 0 {
				return 0, "", protowire.ParseError(l)
			}
			n, ps = int64(v), ps[l:]
		case num == 2 && typ == protowire.BytesType:
			v, l := protowire.ConsumeBytes(ps)
			if l < 0 {
				return 0, "", protowire.ParseError(l)
			}
			msg, ps = clean(string(v)), ps[l:]
		default:
			l := protowire.ConsumeFieldValue(num, typ, ps)
			if l < 0 {
				return 0, "", protowire.ParseError(l)
			}
			ps = ps[l:]
		}
	}
	return n, msg, nil
}

// field returns the last length-delimited field num of a message, nil when
// absent.
func field(b []byte, num protowire.Number) ([]byte, error) {
	var found []byte
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return nil, protowire.ParseError(l)
			}
			found, b = v, b[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		b = b[l:]
	}
	return found, nil
}

// statusMessage is what an error answer says: a google.rpc.Status's
// message (field 2) in protobuf or JSON, else the body's text, cut short.
func statusMessage(body []byte, contentType string) string {
	if strings.HasPrefix(contentType, "application/x-protobuf") {
		if m, err := field(body, 2); err == nil && m != nil {
			return clean(string(m))
		}
	}
	var st struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &st) == nil && st.Message != "" {
		return clean(st.Message)
	}
	return clean(string(body))
}

// clean makes a receiver's text fit one line of stderr.
func clean(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
