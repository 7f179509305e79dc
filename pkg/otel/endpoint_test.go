package otel

import (
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// TestParseTo: --to and the OTEL_EXPORTER_OTLP_* variables make the
// endpoint the OTLP exporter specification says; an error never shows a
// header's name or value.
func TestParseTo(t *testing.T) {
	cases := []struct {
		to      string
		env     map[string]string
		url     string
		json    bool
		header  string // Key=value expected
		wantErr string
	}{
		{to: "otlp+http://127.0.0.1:4318", url: "http://127.0.0.1:4318/v1/traces"},
		{to: "otlp+https://otel.example/custom/path", url: "https://otel.example/custom/path"},
		{to: "otlp", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:4318/"}, url: "http://h:4318/v1/traces"},
		{to: "otlp", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:1/x"}, url: "http://t:1/x"},
		{to: "otlp", wantErr: "set OTEL_EXPORTER_OTLP_ENDPOINT"},
		{to: "otlp+http://h:1", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, url: "http://h:1/v1/traces", json: true},
		{to: "otlp+http://h:1", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, wantErr: "http/protobuf and http/json"},
		{to: "otlp+http://h:1", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "api-key=s%3Dcret%2C1, x-team = blue"}, url: "http://h:1/v1/traces", header: "Api-Key=s=cret,1"},
		{to: "otlp+http://h:1", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "api-key=s3cret,bare"}, wantErr: "entry 2 is not key=value"},
		{to: "otlp+http://h:1", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "bad key=s3cret"}, wantErr: "entry 1 is no HTTP header"},
		{to: "otlp+http://user:s3cret@h:1", wantErr: "xxxxx"},
		{to: "otlp+ftp://h", wantErr: "want otlp+http://"},
		{to: "otlp+http://", wantErr: "want otlp+http://"},
	}
	for _, tc := range cases {
		ep, err := ParseTo(tc.to, func(k string) string { return tc.env[k] })
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("%s %v: %v, want an error with %q and no secret", tc.to, tc.env, err, tc.wantErr)
			}
			continue
		}
		if err != nil || ep.URL != tc.url || ep.JSON != tc.json {
			t.Errorf("%s %v: %+v, %v; want %s json %v", tc.to, tc.env, ep, err, tc.url, tc.json)
			continue
		}
		if k, v, ok := strings.Cut(tc.header, "="); ok && ep.Header.Get(k) != v {
			t.Errorf("%s: header %s = %q, want %q", tc.to, k, ep.Header.Get(k), v)
		}
	}
}

// FuzzHeaders: any OTEL_EXPORTER_OTLP_HEADERS value parses or is refused,
// and a refusal never holds what was given.
func FuzzHeaders(f *testing.F) {
	for _, s := range []string{"a=b", "a=b,c=d", "a%20b=c", "=x", "k=v\r\n", "x=%zz", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := map[string][]string{}
		err := parseHeaders(s, h)
		if err != nil && len(s) > 8 && strings.Contains(err.Error(), s) {
			t.Errorf("the error %q repeats the value", err)
		}
	})
}

// FuzzPartialSuccess: any answer body reads as a count and a message, or
// an error; never a panic, never a negative count from a JSON answer.
func FuzzPartialSuccess(f *testing.F) {
	f.Add([]byte{0x0a, 0x05, 0x08, 0x02, 0x12, 0x01, 'x'}, false)
	f.Add([]byte(`{"partialSuccess":{"rejectedSpans":"2","errorMessage":"old"}}`), true)
	f.Add([]byte{0x0a, 0xff}, false)
	f.Fuzz(func(t *testing.T, body []byte, isJSON bool) {
		ct := "application/x-protobuf"
		if isJSON {
			ct = "application/json"
		}
		_, msg, _ := partialSuccess(body, ct)
		if len(msg) > 210 || strings.ContainsAny(msg, "\n\r") {
			t.Errorf("message %q is not one short line", msg)
		}
	})
}

// FuzzRecord: any bytes given as a record make a span, nothing, or an
// error; never a panic.
func FuzzRecord(f *testing.F) {
	for _, name := range []string{"chat.jsonl", "agent.jsonl", "summarized.jsonl"} {
		b, err := readTestdata(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f.Add([]byte(line))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// What peekInput reads without decoding, DecodeStored reads alike.
		// Only of a record that decodes: peekInput reads the store's bodies,
		// and it checks no more than it needs (an aux that is not an
		// object is never stored).
		var r transcript.Record
		if conv, created, ok := peekInput(body); ok && transcript.DecodeStored(body, &r) == nil {
			if r.Conversation != string(conv) || r.Metadata.Timing.Creation != created ||
				r.Message.Role != transcript.RoleUser && r.Message.Role != transcript.RoleSystem {
				t.Errorf("peekInput read %q %d, DecodeStored %q %d %s", conv, created, r.Conversation, r.Metadata.Timing.Creation, r.Message.Role)
			}
		}
		c := Converter{Content: true}
		c.Record(body, func(s *Span) error {
			AppendJSON(nil, testResource, []Span{*s})
			AppendProto(nil, testResource, []Span{*s})
			return nil
		})
	})
}

// TestTopInt: a usage count is read at the top level of the object only.
func TestTopInt(t *testing.T) {
	cases := []struct {
		raw  string
		want int64
		ok   bool
	}{
		{`{"input_tokens":12,"output_tokens":3}`, 12, true},
		{`{"details":{"input_tokens":99},"input_tokens":7}`, 7, true},
		{`{"note":"input_tokens\":5","x":1}`, 0, false},
		{`{"input_tokens":null}`, 0, false},
		{`{"input_tokens":-4}`, -4, true},
	}
	for _, tc := range cases {
		if got, ok := topInt([]byte(tc.raw), "input_tokens"); got != tc.want || ok != tc.ok {
			t.Errorf("%s: %d %v, want %d %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}
