package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/transcript"
)

// compactionInput is a span to compact: the previous summary (the same
// provider's compaction, which goes first as it came) and two turns.
func compactionInput(provider string) Input {
	prev := transcript.Record{ID: "01JRZJ166J2WRMF990535EVSR0", Message: transcript.Message{Role: transcript.RoleSummary,
		Contents: []string{transcript.CompactionMarker}, ProviderData: []transcript.ProviderItem{{Provider: provider, Item: json.RawMessage(`{"type":"compaction","id":"cmp_0","encrypted_content":"enc:old"}`)}}}}
	if provider == "anthropic" {
		prev.Message.Contents = []string{"Paris was asked."}
		prev.Message.ProviderData[0].Item = json.RawMessage(`{"type":"compaction","content":"Paris was asked.","signature":"EqQBCgIYAhIMcompaction"}`)
	}
	recs := []transcript.Record{
		{ID: "01JRZJ166J2WRMF990535EVSR1", Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"18°C."}}},
		{ID: "01JRZJ166J2WRMF990535EVSR2", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"And Rome?"}}},
		{ID: "01JRZJ166J2WRMF990535EVSR3", Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"21°C."}}},
	}
	in := Input{Instruction: DefaultPrompt, PreviousSummary: &prev}
	in.Records = recs
	return in
}

// TestCompactionBody: the request each provider's compaction is sent, as
// golden files: Anthropic's on-demand body, OpenAI's /responses/compact
// body (model and input only).
func TestCompactionBody(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai-responses"} {
		t.Run(provider, func(t *testing.T) {
			body, betas, err := compactionBody(provider, "model-x", compactionInput(provider))
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"anthropic": "compact-2026-09-04,compact-2026-01-12"}[provider]; strings.Join(betas, ",") != want {
				t.Errorf("betas %q, want %q", betas, want)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, body, "", "  "); err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			got.WriteString("\n")
			golden.Check(t, filepath.Join("testdata", "compaction", provider+".json"), got.Bytes(), *update)
		})
	}
}

// TestCompactionSummarizer: through the fake provider, each compaction
// gives its item as provider data, the readable text or the marker, and
// the provider's usage.
func TestCompactionSummarizer(t *testing.T) {
	for _, c := range []struct{ provider, text string }{
		{"anthropic", "Paris 18°C, Rome 21°C."},
		{"openai-responses", transcript.CompactionMarker},
	} {
		t.Run(c.provider, func(t *testing.T) {
			srv := providertest.New(t, providertest.Step{Answer: &providertest.Answer{Compaction: "Paris 18°C, Rome 21°C."}})
			opts := llm.Options{APIKey: "k", BaseURL: srv.BaseURL(c.provider), Compact: c.provider != "anthropic"}
			if c.provider == "anthropic" {
				opts.Betas = []string{"compact-2026-09-04"}
			}
			tr, err := llm.New(c.provider, opts)
			if err != nil {
				t.Fatal(err)
			}
			out, err := (&Compaction{Provider: c.provider, Transport: tr, Model: "model-x"}).Summarize(context.Background(), compactionInput(c.provider))
			if err != nil {
				t.Fatal(err)
			}
			if out.Text != c.text || len(out.ProviderData) == 0 || out.ProviderData[len(out.ProviderData)-1].Provider != c.provider || len(out.Usage) == 0 {
				t.Errorf("output %+v", out)
			}
			req := srv.Requests()[0]
			if c.provider == "anthropic" && !strings.Contains(req.Header.Get("anthropic-beta"), "compact-2026-09-04") || c.provider != "anthropic" && !strings.HasSuffix(req.Path, "/responses/compact") {
				t.Errorf("request %s %v", req.Path, req.Header)
			}
		})
	}
}
