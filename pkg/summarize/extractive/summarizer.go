package extractive

import (
	"context"

	"github.com/convo-cli/convo/pkg/summarize/span"
	"github.com/convo-cli/convo/pkg/tokens"
)

// Summarizer is the default summarizer of package summarize: this
// engine, offline, behind its Summarizer interface (Name, Summarize,
// ReadsRecords), which it meets through package span without importing
// the use case.
type Summarizer struct {
	Counter *tokens.Counter
}

// Name names the summarizer on the summary record.
func (s *Summarizer) Name() string { return "extractive" }

// Summarize reads in.Records (or in.Each) and in.Previous, not in.Text.
func (s *Summarizer) Summarize(_ context.Context, in span.Input) (span.Output, error) {
	text, err := (&Engine{Counter: s.Counter}).Summarize(in)
	return span.Output{Text: text}, err
}

// ReadsRecords reports that the summarizer reads records, not text: a
// stored conversation's span is streamed to it.
func (s *Summarizer) ReadsRecords() bool { return true }
