package otel

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// LiveRecords sends the span of the records in hand (nil ones left out)
// when an endpoint is set, and nothing when none is.
func TestLiveRecords(t *testing.T) {
	var recs []*transcript.Record
	for _, b := range records(t, "chat.jsonl") {
		if strings.Contains(string(b), `"role":"assistant"`) {
			var r transcript.Record
			if err := transcript.DecodeStored(b, &r); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, &r, nil)
			break
		}
	}
	if len(recs) == 0 {
		t.Fatal("chat.jsonl holds no answer")
	}
	for _, tc := range []struct {
		name     string
		endpoint bool
		requests int
	}{
		{"no endpoint: nothing sent", false, 0},
		{"an endpoint: the span sent", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := &receiver{answers: []answer{{status: http.StatusOK}}}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			env := map[string]string{}
			if tc.endpoint {
				env["OTEL_EXPORTER_OTLP_ENDPOINT"] = srv.URL
			}
			if err := LiveRecords(context.Background(), func(k string) string { return env[k] }, Resource{ServiceName: "convo"}, recs...); err != nil {
				t.Fatal(err)
			}
			if rc.requests != tc.requests || (tc.requests > 0 && rc.spans == 0) {
				t.Errorf("%d requests, %d spans; want %d requests", rc.requests, rc.spans, tc.requests)
			}
		})
	}
}
