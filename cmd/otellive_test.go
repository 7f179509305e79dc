package cmd

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/otel"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestAskLiveSpan: with OTEL_EXPORTER_OTLP_ENDPOINT set, ask sends the span
// of its call, the one export --format otel makes of the stored answer
// (same ids); a receiver that is down is a note on stderr, and ask still
// succeeds.
func TestAskLiveSpan(t *testing.T) {
	rc, got := spanReceiver(t)
	paris := providertest.Step{Answer: &providertest.Answer{Text: "Paris."}}
	askEnv(t, paris, paris)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)
	f, _, errOut := testFactory(t, "")
	if err := askTest(t, f, "Capital?"); err != nil {
		t.Fatal(err)
	}
	s, _ := f.Store(context.Background())
	var recs []transcript.Record
	s.Read(context.Background(), "c", store.ReadOptions{}, func(row store.Row) error {
		var r transcript.Record
		err := transcript.DecodeStored(row.Body, &r)
		recs = append(recs, r)
		return err
	})
	if len(recs) != 2 || len(*got) != 1 {
		t.Fatalf("%d records stored, spans received %q; want 2 and 1", len(recs), *got)
	}
	var model string
	json.Unmarshal(recs[1].Metadata.Aux["model"], &model)
	id := otel.SpanOf("c", recs[1].ID)
	want := "chat " + model + "|" + hex.EncodeToString(id[:]) + "|" + model
	if model == "" || (*got)[0] != want || errOut.Len() != 0 {
		t.Errorf("span %q, want %q; stderr %q", (*got)[0], want, errOut)
	}

	rc.Close() // the receiver is down now
	if err := askTest(t, f, "Again?"); err != nil {
		t.Fatalf("ask with the receiver down: %v", err)
	}
	if !strings.Contains(errOut.String(), "convo: otel: the span was not sent") {
		t.Errorf("stderr %q, want a note that the span was not sent", errOut)
	}
}

// TestSummarizeLiveSpan: an LLM summarizer's summary is sent as its span;
// the extractive one's is not (it called no model).
func TestSummarizeLiveSpan(t *testing.T) {
	rc, got := spanReceiver(t)
	askEnv(t, providertest.Step{Answer: &providertest.Answer{Text: "the gist"}})
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)
	f, _, _ := testFactory(t, "")
	seedTrip(t, f, "a")
	seedTrip(t, f, "b")
	if err := summarizeTest(t, f, "-c", "a", "--keep-last", "1", "--summarizer", "openai"); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 1 || !strings.HasPrefix((*got)[0], "summarize openai|") || !strings.Contains((*got)[0], "|gpt-4o-mini") {
		t.Fatalf("spans %q, want one summarize openai span with the model", *got)
	}
	if err := summarizeTest(t, f, "-c", "b", "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 1 {
		t.Errorf("the extractive summarizer sent a span: %q", *got)
	}
}

// spanReceiver is an OTLP/HTTP receiver on pdata's decoders that keeps
// each span as "name|span id|gen_ai.request.model".
func spanReceiver(t *testing.T) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	got := &[]string{}
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := ptraceotlp.NewExportRequest()
		if r.URL.Path != "/v1/traces" || req.UnmarshalProto(body) != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range req.Traces().ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					model, _ := s.Attributes().Get("gen_ai.request.model")
					*got = append(*got, s.Name()+"|"+s.SpanID().String()+"|"+model.Str())
				}
			}
		}
	}))
	t.Cleanup(rc.Close)
	return rc, got
}
