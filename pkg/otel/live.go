package otel

import (
	"context"
	"net/http"
	"time"

	"github.com/convo-cli/convo/pkg/store"
)

// LiveTimeout bounds a live span's one request: a receiver that does not
// answer in time costs the command no more than this.
var LiveTimeout = 2 * time.Second

// Live sends the spans of records (a call's request records, then its
// answer, each canonical JSON) to the receiver the OTLP exporter variables
// name, once, without retrying: the span of a call just made, for ask and
// the LLM summarizers. Without an endpoint in the environment it does
// nothing. CONVO_OTEL_CONTENT=1 puts the texts on the spans.
func Live(ctx context.Context, getenv func(string) string, res Resource, records ...[]byte) error {
	ep, ok, err := EnvEndpoint(getenv)
	if !ok || err != nil {
		return err
	}
	conv := Converter{Content: getenv("CONVO_OTEL_CONTENT") == "1"}
	c := &Client{Endpoint: ep, Resource: res, HTTP: &http.Client{Timeout: LiveTimeout}, Backoff: store.Backoff{Attempts: 1}}
	n := 0
	for _, b := range records {
		if err := conv.Record(b, func(s *Span) error { c.Add(s); n++; return nil }); err != nil {
			return err
		}
	}
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, LiveTimeout)
	defer cancel()
	return c.Send(ctx)
}
