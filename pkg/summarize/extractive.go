package summarize

import (
	"context"

	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/tokens"
)

// Extractive is the default summarizer: the offline engine of package
// extractive behind the Summarizer interface.
type Extractive struct {
	Counter *tokens.Counter
}

// Name implements Summarizer.
func (e *Extractive) Name() string { return "extractive" }

// Summarize implements Summarizer; it reads in.Records (or in.Each) and
// in.Previous, not in.Text.
func (e *Extractive) Summarize(_ context.Context, in Input) (Output, error) {
	text, err := (&extractive.Engine{Counter: e.Counter}).Summarize(in.Input)
	return Output{Text: text}, err
}

// ReadsRecords implements RecordReader.
func (e *Extractive) ReadsRecords() bool { return true }
