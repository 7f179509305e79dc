// Package span holds what a summarizer is given and what it answers: the
// span of a conversation to fold (its records or a stream of them, the
// previous summary, the bound on the text, the fact ledger) and the
// summary's text. The use case (pkg/summarize) and every summarizer,
// the offline engine (pkg/summarize/extractive) among them, share these
// types, so that neither imports the other.
package span

import (
	"encoding/json"

	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Input is what a summarizer receives: the instruction and the text
// rendered of the span for one that reads text (an LLM, exec), and the
// span itself for one that reads records (the extractive engine): the
// previous summary's text, the records folded in (or a stream of them),
// the bound on its length and the fact ledger.
type Input struct {
	// Instruction is the prompt: what to do with Text.
	Instruction string
	// Text is the covered records and the previous summary, shaped by the
	// template.
	Text string
	// PreviousSummary is the previous summary record, nil for none: a
	// summarizer that sends the records (a provider's compaction) sends
	// it first.
	PreviousSummary *transcript.Record
	// Previous is the previous summary's text without its ledger ("" for
	// the first summary).
	Previous string
	// Records are the records folded in; Each, when set, replays them
	// instead, in order, as often as it is called: a long span is
	// streamed from the store, never held.
	Records []transcript.Record
	Each    transcript.Stream
	// MaxTokens bounds the text.
	MaxTokens int
	// Facts is the ledger the text is followed by, unless it holds them
	// word for word; FactsTokens is their room, which notes that hold
	// some facts may use.
	Facts        []facts.Fact
	FactsDropped int
	FactsTokens  int
	// Tools: the span or one before it had tool calls, and the summary
	// opens with an agent session's sections, which hold the tool calls,
	// their outcomes and error lines: the notes are then the decisions,
	// the user's and the assistant's own words, and no tool output.
	Tools bool
}

// Compose is the exact text a text-in, text-out summarizer receives.
func (in Input) Compose() string { return in.Instruction + "\n\n" + in.Text }

// Stream is the stream of the records folded in: Each, or Records.
func (in Input) Stream() transcript.Stream {
	if in.Each != nil {
		return in.Each
	}
	return transcript.Slice(in.Records...)
}

// Output is a summarizer's answer.
type Output struct {
	Text  string
	Model string
	// InputTokens and OutputTokens are what the provider says the summary
	// cost (0: it did not say, or no provider was called).
	InputTokens, OutputTokens int
	// ProviderData, from a provider's compaction (Compaction), goes on the
	// summary record; Usage is that provider's usage object, kept under
	// aux.usage as it came.
	ProviderData []transcript.ProviderItem
	Usage        json.RawMessage
}
