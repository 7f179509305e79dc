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

// TestSummarizeAllLiveSpans: summarize --all sends the span of each LLM
// summary in batches (MinSpans 2 here: 5 summaries, 3 requests); with the
// receiver down it still succeeds, with one note for the run.
func TestSummarizeAllLiveSpans(t *testing.T) {
	defer func(n int) { otel.MinSpans = n }(otel.MinSpans)
	otel.MinSpans = 2
	rc, got, requests := countingSpanReceiver(t)
	gist := providertest.Step{Answer: &providertest.Answer{Text: "the gist"}}
	convs := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	steps := make([]providertest.Step, len(convs))
	for i := range steps {
		steps[i] = gist
	}
	askEnv(t, steps...)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)
	f, _, errOut := testFactory(t, "")
	for _, c := range convs[:5] {
		seedTrip(t, f, c)
	}
	if err := summarizeTest(t, f, "--all", "--keep-last", "1", "--summarizer", "openai"); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 5 || requests() != 3 {
		t.Fatalf("%d spans in %d requests, want 5 in 3: %q", len(*got), requests(), *got)
	}
	for _, s := range *got {
		if !strings.HasPrefix(s, "summarize openai|") || !strings.Contains(s, "|gpt-4o-mini") {
			t.Errorf("span %q, want a summarize openai span with its model", s)
		}
	}
	if strings.Contains(errOut.String(), "otel") {
		t.Errorf("stderr %q, want no note on otel", errOut)
	}

	rc.Close() // the receiver is down now
	for _, c := range convs[5:] {
		seedTrip(t, f, c)
	}
	errOut.Reset()
	if err := summarizeTest(t, f, "--all", "--keep-last", "1", "--summarizer", "openai"); err != nil {
		t.Fatalf("summarize --all with the receiver down: %v", err)
	}
	if n := strings.Count(errOut.String(), "convo: otel:"); n != 1 {
		t.Errorf("%d notes on otel, want 1: %q", n, errOut)
	}
}

// spanReceiver is an OTLP/HTTP receiver on pdata's decoders that keeps
// each span as "name|span id|gen_ai.request.model".
func spanReceiver(t *testing.T) (*httptest.Server, *[]string) {
	rc, got, _ := countingSpanReceiver(t)
	return rc, got
}

// countingSpanReceiver is spanReceiver that also counts the requests it
// was sent.
func countingSpanReceiver(t *testing.T) (*httptest.Server, *[]string, func() int) {
	var mu sync.Mutex
	got := &[]string{}
	requests := 0
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
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
	return rc, got, func() int { mu.Lock(); defer mu.Unlock(); return requests }
}
