package llm

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/format"
)

// staticCredentials are fixed AWS credentials with secret as the secret
// access key.
func staticCredentials(secret string) aws.CredentialsProvider {
	return aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: secret, Source: "test"}, nil
	})
}

// eventMessageEnd is the offset where the event stream message holding
// byte i of stream ends.
func eventMessageEnd(stream string, i int) int {
	end := 0
	for end <= i {
		end += int(binary.BigEndian.Uint32([]byte(stream[end : end+4])))
	}
	return end
}

// awsEnv points the AWS chain at the environment alone: no shared files,
// no instance metadata, and the variables given.
func awsEnv(t *testing.T, vars map[string]string) {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", empty)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", empty)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for k, v := range vars {
		t.Setenv(k, v)
	}
}

// TestBedrockChain: region and credentials come from the AWS chain; the
// endpoint is the region's unless a base URL is given; the session token
// goes along, signed; the secret key and token are hidden like API keys.
func TestBedrockChain(t *testing.T) {
	awsEnv(t, map[string]string{"AWS_REGION": "eu-west-3", "AWS_ACCESS_KEY_ID": "AKIDCHAIN", "AWS_SECRET_ACCESS_KEY": testKey, "AWS_SESSION_TOKEN": "session-token-SECRET-123"})
	c, err := New("bedrock", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b := c.(*bedrock); b.base != "https://bedrock-runtime.eu-west-3.amazonaws.com" || b.region != "eu-west-3" {
		t.Errorf("base %q, region %q", b.base, b.region)
	}
	s := start(t, providertest.Step{Status: 403, Error: "token session-token-SECRET-123 and " + testKey + " rejected"})
	c, err = New("bedrock", Options{BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Send(context.Background(), request(t, "bedrock", false))
	e := wantError(t, err)
	if e.Status != 403 || e.Retryable || e.Attempts != 1 || strings.Contains(e.Error(), "SECRET") {
		t.Errorf("%+v", e)
	}
	req := s.Requests()[0]
	if !strings.HasPrefix(req.Header.Get("Authorization"), "AWS4-HMAC-SHA256") || req.Header.Get("X-Amz-Security-Token") != "[SECRET]" {
		t.Errorf("headers %v", req.Header)
	}

	// A good signature with the session token passes the fake's check.
	s = start(t)
	if c, err = New("bedrock", Options{BaseURL: s.URL}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(context.Background(), request(t, "bedrock", false)); err != nil {
		t.Fatal(err)
	}
}

// TestBedrockNoCredentials: without credentials or region, New says what to
// set before anything is sent.
func TestBedrockNoCredentials(t *testing.T) {
	awsEnv(t, map[string]string{"AWS_REGION": "us-east-1"})
	_, err := New("bedrock", Options{})
	if !errors.Is(err, ErrMissingKey) || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") || !strings.Contains(err.Error(), "AWS_BEARER_TOKEN_BEDROCK") {
		t.Errorf("no credentials: %v", err)
	}
	awsEnv(t, map[string]string{"AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"})
	if _, err := New("bedrock", Options{}); err == nil || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Errorf("no region: %v", err)
	}
	// A Bedrock API key needs neither credentials nor, with a base URL, a
	// region.
	if _, err := New("bedrock", Options{APIKey: testKey, BaseURL: "http://localhost:1"}); err != nil {
		t.Errorf("API key: %v", err)
	}
}

// TestBedrockAPIKey: a Bedrock API key goes as a bearer token, unsigned.
func TestBedrockAPIKey(t *testing.T) {
	s := start(t)
	c, err := New("bedrock", Options{APIKey: testKey, Region: "us-west-2", BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send(context.Background(), request(t, "bedrock", false)); err != nil {
		t.Fatal(err)
	}
	if h := s.Requests()[0].Header; h.Get("Authorization") != "Bearer [KEY]" || h.Get("X-Amz-Date") != "" {
		t.Errorf("headers %v", h)
	}
}

// TestBedrockWrongSecret: a signature the server does not accept is a 403,
// final at once.
func TestBedrockWrongSecret(t *testing.T) {
	s := start(t)
	c, err := New("bedrock", Options{Region: "us-east-1", Credentials: staticCredentials("not-the-secret"), BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Send(context.Background(), request(t, "bedrock", false))
	if e := wantError(t, err); e.Status != 403 || e.Retryable || !strings.Contains(e.Message, "signature") {
		t.Errorf("%+v", e)
	}
}

// TestBedrockPath: the model id is escaped as the AWS SDKs escape it, an
// inference profile's ARN included, and the signature covers that path.
func TestBedrockPath(t *testing.T) {
	s := start(t)
	c := transport(t, "bedrock", s, Options{})
	for _, m := range []string{bedrockModel, "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-haiku-20240307-v1:0"} {
		call := request(t, "bedrock", false)
		call.Model = m
		if _, err := c.Send(context.Background(), call); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	reqs := s.Requests()
	if reqs[1].Model != "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-haiku-20240307-v1:0" {
		t.Errorf("model %q", reqs[1].Model)
	}
	if got := awsPathEscape("us.anthropic.claude-3:0/a b~"); got != "us.anthropic.claude-3%3A0%2Fa%20b~" {
		t.Errorf("awsPathEscape = %q", got)
	}
	call := request(t, "bedrock", false)
	call.Model = ""
	if _, err := c.Send(context.Background(), call); err == nil {
		t.Error("no model: no error")
	}
}

// TestBedrockStatuses: Bedrock's error statuses map as the other
// providers' do: throttling, timeouts and server errors are retried, the
// caller's mistakes are not; the message is the body's, or the exception's
// name when the body has none.
func TestBedrockStatuses(t *testing.T) {
	for _, tc := range []struct {
		status    int
		body      string
		retryable bool
		message   string
	}{
		{400, `{"message":"Malformed input request: extraneous key [foo] is not permitted"}`, false, "Malformed input request: extraneous key [foo] is not permitted"},
		{403, `{"Message":"User is not authorized to perform: bedrock:InvokeModel"}`, false, "User is not authorized to perform: bedrock:InvokeModel"},
		{408, `{"message":"Model has timed out in processing the request."}`, true, "Model has timed out in processing the request."},
		{424, `{"message":"Received 500 from the model."}`, false, "Received 500 from the model."},
		{429, `{"message":"Too many requests, please wait before trying again."}`, true, "Too many requests, please wait before trying again."},
		{500, `{}`, true, "InternalServerException"},
		{503, `{"message":"Bedrock is unable to process your request."}`, true, "Bedrock is unable to process your request."},
	} {
		kind := map[int]string{400: "ValidationException", 403: "AccessDeniedException", 408: "ModelTimeoutException", 424: "ModelErrorException",
			429: "ThrottlingException", 500: "InternalServerException", 503: "ServiceUnavailableException"}[tc.status]
		s := start(t, providertest.Step{Status: tc.status, Body: tc.body, Header: map[string]string{"X-Amzn-ErrorType": kind + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}})
		sl := &sleeps{}
		_, err := transport(t, "bedrock", s, Options{Sleep: sl.sleep, Retry: RetryPolicy{MaxAttempts: 2}}).Send(context.Background(), request(t, "bedrock", false))
		e := wantError(t, err)
		if e.Status != tc.status || e.Retryable != tc.retryable || e.Message != tc.message || (len(s.Requests()) == 2) != tc.retryable {
			t.Errorf("%d: %+v after %d requests", tc.status, e, len(s.Requests()))
		}
	}
}

// TestBedrockStreamExceptions: an exception inside the event stream before
// any text is retried when transient; a validation exception, or any
// exception after text, is final.
func TestBedrockStreamExceptions(t *testing.T) {
	header := map[string]string{"Content-Type": providertest.BedrockStreamType}
	paris := &providertest.Answer{Text: "Paris."}
	throttled := string(providertest.BedrockException("throttlingException", "Too many tokens, please wait before trying again."))
	s := start(t, providertest.Step{Body: throttled, Header: header}, providertest.Step{Answer: paris})
	var text string
	call := request(t, "bedrock", true)
	call.OnText = func(s string) { text += s }
	if _, err := transport(t, "bedrock", s, Options{Sleep: (&sleeps{}).sleep}).Send(context.Background(), call); err != nil || text != "Paris." || len(s.Requests()) != 2 {
		t.Fatalf("%v %q, %d requests", err, text, len(s.Requests()))
	}

	s = start(t, providertest.Step{Body: string(providertest.BedrockException("validationException", "The model returned the following errors: bad")), Header: header})
	_, err := transport(t, "bedrock", s, Options{Sleep: (&sleeps{}).sleep}).Send(context.Background(), call)
	if e := wantError(t, err); e.Retryable || e.Message != "The model returned the following errors: bad" || len(s.Requests()) != 1 {
		t.Errorf("%+v", e)
	}

	stream := providertest.Stream("bedrock", "", &providertest.Answer{Text: "Paris is the capital."})
	cut := stream[:eventMessageEnd(stream, strings.Index(stream, "Paris is "))]
	s = start(t, providertest.Step{Body: cut + string(providertest.BedrockException("modelStreamErrorException", "the model stopped")), Header: header})
	_, err = transport(t, "bedrock", s, Options{Sleep: (&sleeps{}).sleep}).Send(context.Background(), call)
	if e := wantError(t, err); e.Retryable || !strings.Contains(e.Message, "the model stopped") || !strings.Contains(e.Message, "stream broke") {
		t.Errorf("%+v", e)
	}
}

// TestEventStream: messages are read with both checksums checked; a
// stream cut inside a message is truncated (retryable), a corrupt one is
// not an event stream.
func TestEventStream(t *testing.T) {
	one := providertest.EventMessage(map[string]string{":event-type": "messageStart", ":message-type": "event"}, []byte(`{"role":"assistant"}`))
	two := providertest.EventMessage(map[string]string{":event-type": "metadata"}, []byte(`{}`))
	read := func(b []byte) ([]eventMessage, error) {
		var got []eventMessage
		err := readEventStream(bytes.NewReader(b), func(m eventMessage) error { got = append(got, m); return nil })
		return got, err
	}
	got, err := read(append(append([]byte(nil), one...), two...))
	if err != nil || len(got) != 2 || got[0].headers[":event-type"] != "messageStart" || string(got[0].payload) != `{"role":"assistant"}` || got[1].headers[":event-type"] != "metadata" {
		t.Fatalf("%v %+v", err, got)
	}
	if got, err := read(nil); err != nil || len(got) != 0 {
		t.Errorf("empty stream: %v %v", got, err)
	}

	// Every header type is read, its value skipped unless a string.
	var h []byte
	add := func(name string, kind byte, value ...byte) {
		h = append(append(append(h, byte(len(name))), name...), kind)
		h = append(h, value...)
	}
	add("t", 0)
	add("f", 1)
	add("b", 2, 7)
	add("s", 3, 0, 1)
	add("i", 4, 0, 0, 0, 1)
	add("l", 5, 0, 0, 0, 0, 0, 0, 0, 1)
	add("bytes", 6, 0, 2, 0xff, 0xfe)
	add(":event-type", 7, append([]byte{0, 4}, "ping"...)...)
	add("time", 8, 0, 0, 1, 0x8d, 0, 0, 0, 0)
	add("uuid", 9, make([]byte, 16)...)
	msg := rawEventMessage(h, []byte("{}"))
	if got, err := read(msg); err != nil || len(got) != 1 || len(got[0].headers) != 1 || got[0].headers[":event-type"] != "ping" {
		t.Errorf("all header types: %v %+v", err, got)
	}

	flip := func(i int) []byte { b := bytes.Clone(one); b[i] ^= 1; return b }
	for name, tc := range map[string]struct {
		in   []byte
		want error
	}{
		"prelude checksum":  {flip(9), errEventStream},
		"message checksum":  {flip(len(one) - 6), errEventStream},
		"length":            {flip(2), errEventStream},
		"cut in prelude":    {one[:7], errTruncated},
		"cut in message":    {append(bytes.Clone(one), two[:len(two)-1]...), errTruncated},
		"unknown type":      {rawEventMessage([]byte{1, 'x', 10}, nil), errEventStream},
		"header past end":   {rawEventMessage([]byte{1, 'x', 7, 0, 9, 'a'}, nil), errEventStream},
		"empty header name": {rawEventMessage([]byte{0, 0}, nil), errEventStream},
		"too short":         {rawEventMessage(nil, nil)[:12], errTruncated},
	} {
		if _, err := read(tc.in); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	// The assembler reports a corrupt stream as a final failure of the
	// provider, not as truncation.
	_, err = assembleBedrock(bytes.NewReader(flip(9)), func(string) {})
	var pe *format.ProviderError
	if !errors.As(err, &pe) || pe.Retryable || pe.Status != http.StatusOK {
		t.Errorf("corrupt stream: %v", err)
	}
}

// rawEventMessage frames headers (already encoded) and payload.
func rawEventMessage(headers, payload []byte) []byte {
	return providertest.EventMessageRaw(headers, payload)
}

// FuzzEventStream: no input makes the reader panic or allocate past its
// limits, and whatever it accepts framed again reads the same.
func FuzzEventStream(f *testing.F) {
	f.Add([]byte(providertest.Stream("bedrock", "", &providertest.Answer{Text: "Paris.", Calls: []providertest.Call{{ID: "t1", Name: "f", Args: `{"a":1}`}}})))
	f.Add(providertest.BedrockException("throttlingException", "slow down"))
	f.Add(rawEventMessage([]byte{1, 'b', 6, 0, 1, 'x', 1, 's', 7, 0, 0}, nil))
	f.Fuzz(func(t *testing.T, in []byte) {
		var msgs []eventMessage
		err := readEventStream(bytes.NewReader(in), func(m eventMessage) error { msgs = append(msgs, m); return nil })
		if err != nil && !errors.Is(err, errEventStream) && !errors.Is(err, errTruncated) {
			t.Fatalf("unexpected error %v", err)
		}
		for _, m := range msgs {
			again := providertest.EventMessage(m.headers, m.payload)
			var got []eventMessage
			if err := readEventStream(bytes.NewReader(again), func(m eventMessage) error { got = append(got, m); return nil }); err != nil || len(got) != 1 ||
				!bytes.Equal(got[0].payload, m.payload) || len(got[0].headers) != len(m.headers) {
				t.Fatalf("%v %+v, want %+v", err, got, m)
			}
		}
		_, _ = assembleBedrock(bytes.NewReader(in), func(string) {})
	})
}
