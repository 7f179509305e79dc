package otel

import (
	"context"
	"net/http"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
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
	conv, c := liveClient(getenv, ep, res)
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

// LiveRecords is Live of records in hand (nil ones left out), encoded only
// when the environment names an endpoint: without one it costs nothing.
func LiveRecords(ctx context.Context, getenv func(string) string, res Resource, recs ...*transcript.Record) error {
	if _, ok, _ := EnvEndpoint(getenv); !ok {
		return nil
	}
	var bodies [][]byte
	for _, r := range recs {
		if r != nil {
			bodies = append(bodies, transcript.AppendJSON(nil, r))
		}
	}
	return Live(ctx, getenv, res, bodies...)
}

// liveClient is the converter and the client of live spans: each request
// tried once, within LiveTimeout.
func liveClient(getenv func(string) string, ep Endpoint, res Resource) (Converter, *Client) {
	return Converter{Content: getenv("CONVO_OTEL_CONTENT") == "1"},
		&Client{Endpoint: ep, Resource: res, HTTP: &http.Client{Timeout: LiveTimeout}, Backoff: store.Backoff{Attempts: 1}}
}

// LiveBatch gathers the live spans of a run that makes many calls
// (summarize --all over thousands of conversations) and sends them in
// batches of MinSpans, each request tried once within LiveTimeout, so that
// a run costs a request per batch, not one per call. After the first batch
// that fails it sends nothing more: a receiver that is down costs the run
// one timeout and its caller one note. A nil *LiveBatch (no endpoint in
// the environment) gathers nothing. It is not safe for concurrent use.
type LiveBatch struct {
	conv   Converter
	client *Client
	spans  int
	failed bool
}

// NewLiveBatch returns a LiveBatch for the receiver the OTLP exporter
// variables name, or nil without an endpoint in the environment.
func NewLiveBatch(getenv func(string) string, res Resource) (*LiveBatch, error) {
	ep, ok, err := EnvEndpoint(getenv)
	if !ok || err != nil {
		return nil, err
	}
	conv, c := liveClient(getenv, ep, res)
	return &LiveBatch{conv: conv, client: c}, nil
}

// Add takes the records of one call (a call's request records, then its
// answer, each canonical JSON) and sends the batch once it holds MinSpans
// spans. Its error is the batch's that failed, returned once: every later
// call returns nil and sends nothing.
func (l *LiveBatch) Add(ctx context.Context, records ...[]byte) error {
	if l == nil || l.failed {
		return nil
	}
	for _, b := range records {
		if err := l.conv.Record(b, func(s *Span) error { l.client.Add(s); l.spans++; return nil }); err != nil {
			return l.fail(err)
		}
	}
	if l.spans >= MinSpans {
		return l.send(ctx)
	}
	return nil
}

// Close sends the spans gathered since the last batch, with Add's error.
func (l *LiveBatch) Close(ctx context.Context) error {
	if l == nil || l.failed || l.spans == 0 {
		return nil
	}
	return l.send(ctx)
}

func (l *LiveBatch) send(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, LiveTimeout)
	defer cancel()
	l.spans = 0
	if err := l.client.Send(ctx); err != nil {
		return l.fail(err)
	}
	return nil
}

func (l *LiveBatch) fail(err error) error {
	l.failed = true
	l.client.spans = l.client.spans[:0]
	return err
}
