package summarize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/summarize/internal/work"
	"github.com/convo-cli/convo/pkg/summarize/span"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// PromptVersion names the default instruction and template; it is recorded
// on every summary so a change of wording can be traced.
const PromptVersion = "convo-summary-v2"

// Input is what a summarizer receives, and Output what it answers
// (package span, which the summarizers share with this use case).
type (
	Input  = span.Input
	Output = span.Output
)

// Summarizer writes a summary.
type Summarizer interface {
	Name() string
	Summarize(ctx context.Context, in Input) (Output, error)
}

// RecordReader is a Summarizer that reads Input's records, not its text
// (Extractive): it is given no rendered text, and a stored conversation's
// span is streamed to it from the store when it is long.
type RecordReader interface {
	Summarizer
	ReadsRecords() bool
}

// readsRecords reports whether s reads records rather than text.
func readsRecords(s Summarizer) bool {
	rr, ok := s.(RecordReader)
	return ok && rr.ReadsRecords()
}

// Options shape a summarization.
type Options struct {
	KeepLast         int                // turns kept verbatim
	KeepLastTokens   int                // bound on the kept window's tokens (0: none)
	IfOver           int                // only when the view holds more tokens (0: no such trigger)
	Every            int                // only when this many records stand after the latest summary (0: none)
	Prompt           string             // instruction ("" for DefaultPrompt)
	Template         *template.Template // shapes Input.Text (nil for the default)
	MaxSummaryTokens int                // bound on the summary text
	SummaryRatio     float64            // if > 0, the bound is this share of the tokens covered, up to MaxSummaryTokens
	LedgerSize       int                // bound on the fact ledger's entries
	// Redact, when set, hides the secrets a summary's text may hold (a
	// key an LLM or a command echoed) before it is stored or printed.
	Redact  func(string) string
	Counter *tokens.Counter
}

// Skip says why nothing was summarized.
type Skip string

const (
	SkipNothing Skip = "nothing to cover"
	SkipTrigger Skip = "trigger not met"
)

// NothingToCover reports whether s says there was nothing worth covering,
// whatever the reason it gives.
func (s Skip) NothingToCover() bool { return strings.HasPrefix(string(s), string(SkipNothing)) }

// TriggerNotMet reports whether s says a trigger (--if-over, --every) did
// not fire, whatever figures it gives.
func (s Skip) TriggerNotMet() bool { return strings.HasPrefix(string(s), string(SkipTrigger)) }

// skipf is kind with the figures that make it: "trigger not met: the LLM
// view holds 40 tokens, not over --if-over 1000".
func skipf(kind Skip, format string, args ...any) Skip {
	return Skip(string(kind) + ": " + fmt.Sprintf(format, args...))
}

// skipKeptLast says that --keep-last keeps every turn there is: the
// conversation's turns against the window.
func skipKeptLast(keepLast, turns int) Skip {
	return skipf(SkipNothing, "the conversation has %s since the latest summary, within --keep-last %d", plural(turns, "turn"), keepLast)
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// refusal spots answers that are an error or a refusal rather than a summary.
var refusal = work.LazyRegexp(`(?i)^\s*(error\b|exception\b|i'?m sorry\b|i am sorry\b|i can(no|')t\b|as an ai\b|i'?m unable\b|i am unable\b)`)

// ErrBadSummary is a summarizer answer that must not be stored.
var ErrBadSummary = errors.New("summarizer gave no usable summary")

// Record builds the summary record from the summarizer's output: the text,
// then the fact ledger carried from the previous summary and grown with the
// covered records. id and now come from the caller.
func (p *Plan) Record(out Output, summarizer, id string, now int64, opt Options) (transcript.Record, error) {
	text := strings.TrimSpace(out.Text)
	if opt.Redact != nil {
		text = opt.Redact(text)
	}
	if text == "" {
		return transcript.Record{}, fmt.Errorf("%w: the answer is empty", ErrBadSummary)
	}
	if refusal().MatchString(text) {
		return transcript.Record{}, fmt.Errorf("%w: the answer looks like an error or a refusal: %.80q", ErrBadSummary, text)
	}
	ledger := p.Ledger
	if text != transcript.CompactionMarker {
		// (the marker stays alone: it says there is nothing to read)
		if p.sectionsText != "" {
			sections := p.sectionsText
			if opt.Redact != nil {
				sections = opt.Redact(sections)
			}
			text = sections + "\n\n" + text
		}
		if missing := facts.Missing(text, p.ledgerAfterSections()); len(missing) > 0 {
			text += "\n\n" + facts.Text(missing, p.LedgerDropped)
		}
	}
	rec := transcript.Record{
		ID:      id,
		Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{text}},
		Metadata: transcript.Metadata{
			SummaryIDs: p.CoveredIDs(),
			Timing:     transcript.Timing{Creation: now},
		},
	}
	rec.Message.ProviderData = out.ProviderData
	after := opt.Counter.Record(&rec) + p.tailTokens
	aux := map[string]any{
		"summarizer":    summarizer,
		"promptVersion": PromptVersion,
		"tokensBefore":  p.TokensBefore,
		"tokensAfter":   after,
		"coveredTokens": p.CoveredTokens,
		"coveredFrom":   p.coveredFrom,
		"coveredTo":     p.coveredTo,
	}
	// The ids of the first and last original records the summary stands
	// for, carried from summary to summary: they survive the deletion of
	// the originals and of the previous summary (--delete-originals), which
	// summaryIds names.
	if first, last := p.firstID, p.lastID; first != "" {
		aux["coveredFromId"], aux["coveredToId"] = first, last
	}
	if out.Model != "" {
		aux["model"] = out.Model
	}
	switch {
	case len(out.Usage) > 0 && json.Valid(out.Usage) && string(out.Usage) != "null":
		aux["usage"] = out.Usage // the provider's own, as it came
	case out.InputTokens > 0 || out.OutputTokens > 0:
		aux["usage"] = map[string]int{"inputTokens": out.InputTokens, "outputTokens": out.OutputTokens}
	}
	if p.Previous != nil {
		aux["previousSummary"] = p.Previous.ID
		aux["coveredFrom"] = min(p.coveredFrom, previousFrom(p.Previous))
		var fromID string
		if raw, ok := p.Previous.Metadata.Aux["coveredFromId"]; ok && json.Unmarshal(raw, &fromID) == nil && fromID != "" {
			aux["coveredFromId"] = fromID
			if _, ok := aux["coveredToId"]; !ok { // it covers only the previous summary
				json.Unmarshal(p.Previous.Metadata.Aux["coveredToId"], &fromID)
				aux["coveredToId"] = fromID
			}
		}
	}
	if len(ledger) > 0 {
		aux["ledger"] = ledger
	}
	if p.LedgerDropped > 0 {
		aux["ledgerDropped"] = p.LedgerDropped
	}
	if p.sectionsText != "" || p.Sections.First != "" {
		aux["sections"] = p.Sections
	}
	rec.Metadata.Aux = make(map[string]json.RawMessage, len(aux))
	for k, v := range aux {
		b, err := json.Marshal(v)
		if err != nil {
			return transcript.Record{}, err
		}
		rec.Metadata.Aux[k] = b
	}
	// What convo writes, convo reads back: a summary over the record
	// limit (an exec summarizer's 5 MB answer) is refused here, on every
	// path that stores or prints one.
	if err := transcript.CheckSize(&rec); err != nil {
		return transcript.Record{}, fmt.Errorf("%w: %w", ErrBadSummary, err)
	}
	return rec, nil
}

// notesShare: the notes get at least 1/notesShare of the budget, whatever
// the protected ledger takes.
const notesShare = 4

// The default budget is a share of what the summary stands for: a
// conversation twice as long keeps twice as much, so the share of it the
// summary keeps, and the share of tokens sent, stay the same however long
// it runs, where a flat budget keeps ever less of a growing conversation.
// The ratio is the cost the caller accepts; the ceiling bounds one call's
// summary whatever the length. make eval chooses the ratio by one rule on
// every domain (docs/summarize.md): the largest share whose tokens sent
// stays 0.003 under 0.15. The kept window's bound binds on coding-agent
// sessions only (four turns of chat stay under it): the largest whose long
// agent sessions stay under 0.15 of tokens sent.
const (
	DefaultKeepLastTokens   = 2000
	DefaultSummaryRatio     = 0.116
	DefaultMaxSummaryTokens = 4000
)

// MinRatioBudget is the least a --summary-ratio budget grants: below it a
// summary of a short span would say next to nothing.
const MinRatioBudget = 100

// summaryBudget is the summary's bound: MaxSummaryTokens, or with a ratio
// that share of the tokens covered, within [MinRatioBudget, MaxSummaryTokens],
// so the summary costs little while the conversation is young and keeps more
// once it is long; never above the tokens covered.
func summaryBudget(opt Options, covered int) int {
	budget := opt.MaxSummaryTokens
	if budget <= 0 {
		budget = DefaultMaxSummaryTokens
	}
	if opt.SummaryRatio > 0 {
		budget = min(budget, max(MinRatioBudget, int(opt.SummaryRatio*float64(covered))))
	}
	// Never more than what it replaces: a summary of a short span that
	// outgrew the span would cost tokens instead of saving them.
	return min(budget, max(covered, 1))
}

// previousCovered is what a previous summary stands for: its own record of
// it, or (written before coveredTokens was recorded) its own size.
func previousCovered(prev *transcript.Record, counter *tokens.Counter) int {
	var n int
	if raw, ok := prev.Metadata.Aux["coveredTokens"]; ok && json.Unmarshal(raw, &n) == nil && n > 0 {
		return n
	}
	return counter.Record(prev)
}

// originalIDs returns the ids of the first and last covered records that
// are not summaries ("" when there is none).
func originalIDs(covered []transcript.Record) (first, last string) {
	for _, r := range covered {
		if r.Message.Role == transcript.RoleSummary {
			continue
		}
		if first == "" {
			first = r.ID
		}
		last = r.ID
	}
	return first, last
}

func previousFrom(prev *transcript.Record) int64 {
	var from int64
	if raw, ok := prev.Metadata.Aux["coveredFrom"]; ok && json.Unmarshal(raw, &from) == nil && from > 0 {
		return from
	}
	return prev.Metadata.Timing.Creation
}
