package otel

import (
	"context"
	"fmt"
	"io"
	"testing"
)

// benchBodies are records as bench/seed stores them: a user question, then
// an answer with the provider, model, response id, finish reason and usage.
func benchBodies() [][]byte {
	var bodies [][]byte
	for i := range 1000 {
		if i%2 == 0 {
			bodies = append(bodies, fmt.Appendf(nil, `{"id":"01M94Y78F6Q0715Q8R4Y%06d","conversation":"conv-%05d","message":{"role":"user","contents":["Turn %d of conversation 0: we discussed the trip to Lisbon, order #4001 and the budget."]},"metadata":{"timing":{"creation":1796535984614}}}`, i, i/20, i))
			continue
		}
		bodies = append(bodies, fmt.Appendf(nil, `{"id":"01M94Y78F6Q0715Q8R4Z%06d","conversation":"conv-%05d","message":{"role":"assistant","contents":["Turn %d of conversation 0: we discussed the trip to Lisbon, order #4002 and the budget."]},"metadata":{"timing":{"creation":1796535984614},"aux":{"finish_reason":"stop","model":"gpt-4o-mini","provider":"openai","response_id":"chatcmpl-0-%d","usage":{"completion_tokens":22,"prompt_tokens":200}}}}`, i, i/20, i, i))
	}
	return bodies
}

// BenchmarkExportJSON is export --format otel's work per record, the store
// aside: convert, encode, write.
func BenchmarkExportJSON(b *testing.B) {
	bodies := benchBodies()
	sink := NewJSONSink(io.Discard, Resource{ServiceName: "convo"}) // one per export
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(context.Background(), sink, false)
		for i, body := range bodies {
			if err := w.Write(body); err != nil {
				b.Fatal(err)
			}
			if i%20 == 19 {
				if err := w.EndConversation(nil); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bodies)), "ns/rec")
}
