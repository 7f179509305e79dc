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
	if err := otel.LiveRecords(ctx, os.Getenv, otelResource(), recs...); err != nil {
		a.warnf("otel: the span was not sent: %v", err)
	}
}
