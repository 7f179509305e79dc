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
	var mu sync.Mutex
	var got []string
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
					got = append(got, s.Name()+"|"+s.SpanID().String()+"|"+model.Str())
				}
			}
		}
	}))
	defer rc.Close()
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
	if len(recs) != 2 || len(got) != 1 {
		t.Fatalf("%d records stored, spans received %q; want 2 and 1", len(recs), got)
	}
	var model string
	json.Unmarshal(recs[1].Metadata.Aux["model"], &model)
	id := otel.SpanOf("c", recs[1].ID)
	want := "chat " + model + "|" + hex.EncodeToString(id[:]) + "|" + model
	if model == "" || got[0] != want || errOut.Len() != 0 {
		t.Errorf("span %q, want %q; stderr %q", got[0], want, errOut)
	}

	rc.Close() // the receiver is down now
	if err := askTest(t, f, "Again?"); err != nil {
		t.Fatalf("ask with the receiver down: %v", err)
	}
	if !strings.Contains(errOut.String(), "convo: otel: the span was not sent") {
		t.Errorf("stderr %q, want a note that the span was not sent", errOut)
	}
}
