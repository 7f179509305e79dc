package cmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// partialReceiver accepts every request, rejecting one span of each, and
// counts the spans it was sent.
type partialReceiver struct{ spans, requests int }

func (p *partialReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(body); err != nil || r.Header.Get("X-Team-Key") != "s3cr3t-value" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	p.requests++
	p.spans += req.Traces().SpanCount()
	resp := ptraceotlp.NewExportResponse()
	resp.PartialSuccess().SetRejectedSpans(1)
	resp.PartialSuccess().SetErrorMessage("span too old")
	out, _ := resp.MarshalProto()
	w.Write(out)
}

// TestExportOTLPPartialSuccess: a partial success is not sent again: the
// export says on stderr how many spans were rejected and why, exits 1
// (the spec's code for it), and the cursor moved, so the next incremental
// export sends nothing. The header's value is sent and never shown.
func TestExportOTLPPartialSuccess(t *testing.T) {
	rc := &partialReceiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team-key=s3cr3t-value")
	f, out, errOut := testFactory(t, "")
	exportAppend(t, f, "demo", "hello", "hi there", "more", "and more")
	err := runExport(t, f, "-c", "demo", "--incremental", "--to", "otlp+"+srv.URL)
	if code := exitcode.Of(err); code != exitcode.Failure || !strings.Contains(err.Error(), "rejected 1 span(s)") || !strings.Contains(err.Error(), "span too old") {
		t.Fatalf("partial success: exit %d, %v; want 1 and the rejected count with its reason", code, err)
	}
	if rc.requests != 1 || rc.spans != 2 {
		t.Fatalf("the receiver got %d requests, %d spans; want 1 request of 2 (no retry)", rc.requests, rc.spans)
	}
	if err := runExport(t, f, "-c", "demo", "--incremental", "--to", "otlp+"+srv.URL); err != nil || rc.requests != 1 {
		t.Fatalf("second export: %v, %d requests; want nothing sent: the cursor moved past the batch", err, rc.requests)
	}
	if strings.Contains(out.String()+errOut.String()+err.Error(), "s3cr3t") {
		t.Errorf("a header value was shown")
	}
}

// TestExportOTelFlags: the combinations export refuses, as usage errors.
func TestExportOTelFlags(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	f, _, _ := testFactory(t, "")
	for _, tc := range []struct{ args, want string }{
		{"-c d --otel-content", "--otel-content puts texts on spans"},
		{"-c d --to otlp", "set OTEL_EXPORTER_OTLP_ENDPOINT"},
		{"-c d --incremental --ack --to otlp+http://127.0.0.1:1", "drop --ack"},
		{"-c d --format jsonl --to otlp+http://127.0.0.1:1", "--format jsonl does not apply"},
		{"-c d --to otlp+http://u:pw-secret@127.0.0.1:1", "want otlp+http://HOST:PORT"},
	} {
		_, err := exportOpts(t, f, strings.Fields(tc.args)...)
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "pw-secret") {
			t.Errorf("export %s: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}
