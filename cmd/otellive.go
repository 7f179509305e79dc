package cmd

import (
	"context"
	"os"

	"github.com/convo-cli/convo/pkg/otel"
	"github.com/convo-cli/convo/pkg/transcript"
)

// liveSpans sends the span of a call ask or an LLM summarizer just made
// and stored, when OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) is
// set. A receiver that fails is a note on stderr: the command's output and
// exit status stay what they were.
func liveSpans(ctx context.Context, a *Factory, recs ...*transcript.Record) {
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return
	}
	var bodies [][]byte
	for _, r := range recs {
		if r != nil {
			bodies = append(bodies, transcript.AppendJSON(nil, r))
		}
	}
	if err := otel.Live(ctx, os.Getenv, otelResource(), bodies...); err != nil {
		a.warnf("otel: the span was not sent: %v", err)
	}
}

// newLiveBatch gathers the live spans of a run of many calls (summarize
// --all); nil, at no cost, when no endpoint is set.
func newLiveBatch() (*otel.LiveBatch, error) {
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, nil
	}
	return otel.NewLiveBatch(os.Getenv, otelResource())
}
