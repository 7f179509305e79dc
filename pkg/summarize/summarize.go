// Package summarize folds the old part of a transcript into one summary
// record (SPEC sections 2 and 4). Choosing the span, shaping the text, the
// fact ledger and the summary record are pure functions over transcript
// records; the summarizers themselves sit behind one small interface.
package summarize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// PromptVersion names the default instruction and template; it is recorded
// on every summary so a change of wording can be traced.
const PromptVersion = "convo-summary-v2"

// Input is what a summarizer receives.
type Input struct {
	// Instruction is the prompt: what to do with Text.
	Instruction string
	// Text is the covered records and the previous summary, shaped by the
	// template.
	Text string
	// Previous is the previous summary's text ("" for the first summary),
	// and Records the records folded in: for summarizers that work on
	// structure rather than text (extractive).
	Previous string
	Records  []transcript.Record
	// Each, when set, replays the records folded in, in order, as often as
	// it is called, instead of Records: a long span is streamed from the
	// store, never held (see Runner.Run).
	Each RecordStream
	// MaxTokens bounds the summary's length.
	MaxTokens int
	// Facts is the fact ledger, appended after the summary unless the
	// summary already holds them word for word. MaxTokens leaves room for
	// all of them, FactsTokens; a summarizer that holds some may use
	// their room.
	Facts       []Fact
	FactsTokens int
}

// RecordStream calls fn for each record of a span, in order; fn's error
// ends the stream and is returned. The record is valid only during the
// call.
type RecordStream func(fn func(*transcript.Record) error) error

// records is the stream of the records folded in: Each, or Records.
func (in Input) records() RecordStream {
	if in.Each != nil {
		return in.Each
	}
	return sliceStream(in.Records)
}

func sliceStream(recs []transcript.Record) RecordStream {
	return func(fn func(*transcript.Record) error) error {
		for i := range recs {
			if err := fn(&recs[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// Compose is the exact text a text-in, text-out summarizer receives.
func (in Input) Compose() string { return in.Instruction + "\n\n" + in.Text }

// Output is a summarizer's answer.
type Output struct {
	Text  string
	Model string
	// InputTokens and OutputTokens are what the provider says the summary
	// cost (0: it did not say, or no provider was called).
	InputTokens, OutputTokens int
}

// Summarizer writes a summary.
type Summarizer interface {
	Name() string
	Summarize(ctx context.Context, in Input) (Output, error)
}

// Options shape a summarization.
type Options struct {
	KeepLast         int                // turns kept verbatim
	IfOver           int                // only when the view holds more tokens (0: no such trigger)
	Every            int                // only when this many records stand after the latest summary (0: none)
	Prompt           string             // instruction ("" for DefaultPrompt)
	Template         *template.Template // shapes Input.Text (nil for the default)
	MaxSummaryTokens int                // bound on the summary text
	SummaryRatio     float64            // if > 0, the bound is this share of the tokens covered, up to MaxSummaryTokens
	LedgerSize       int                // bound on the fact ledger's entries
	Counter          *tokens.Counter
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

// skipKeptLast says that --keep-last keeps every turn there is.
func skipKeptLast(keepLast, turns int) Skip {
	return Skip(fmt.Sprintf("%s: --keep-last %d keeps all %d turns since the latest summary", SkipNothing, keepLast, turns))
}

// Plan is a summarization decided but not yet run: what it covers and the
// input the summarizer gets.
type Plan struct {
	Records      []transcript.Record // the transcript from the latest summary on
	Span         transcript.Span
	Previous     *transcript.Record  // the previous summary, or nil
	Covered      []transcript.Record // folded in, the previous summary left out
	Input        Input
	TokensBefore int
	// CoveredTokens counts the tokens of every record this summary stands
	// for, through its predecessors.
	CoveredTokens int
	// Budget bounds the summary, ledger included.
	Budget int
	// Ledger is the fact ledger the summary will carry: the previous one
	// grown with the covered records, known before the summarizer runs so
	// the summarizer gets the budget it leaves.
	Ledger []Fact
	counts []int // tokens of each record the LLM is sent, by index

	// What Record needs of the span, known once the span is planned (or,
	// streamed, once its records have passed): the records the LLM is
	// sent after the anchor, the creation times of the first and last
	// records folded in, and the ids of the first and last original ones.
	tailTokens             int
	coveredFrom, coveredTo int64
	firstID, lastID        string
	anchorID               string
	coveredIDs             []string // streamed only: Records is nil
	each                   RecordStream
	previousID             string
	readSeq                int64        // streamed: the change sequence the plan was read at
	gatherIDs              func() error // streamed: reads coveredIDs, before Record
}

// Prepare decides whether and what to summarize in recs: the transcript
// from its latest summary on (records before it play no part). It returns
// a nil plan and the reason when there is nothing to do.
func Prepare(recs []transcript.Record, opt Options) (*Plan, Skip, error) {
	return prepare(recs, opt, true)
}

// prepare is Prepare; withText false leaves Input.Text empty, for a
// summarizer that reads the records, not the text (Extractive).
func prepare(recs []transcript.Record, opt Options, withText bool) (*Plan, Skip, error) {
	if opt.Counter == nil {
		return nil, "", errors.New("summarize: no token counter")
	}
	// Count each record the LLM is sent once: the sum is the view's tokens
	// now, and the tail's share gives the view's tokens after summarizing.
	counts := make([]int, len(recs))
	latest := transcript.LatestSummary(recs)
	from := max(latest, 0)
	forEachParallel(len(recs)-from, func(i int) {
		if r := &recs[from+i]; r.Message.Role != transcript.RoleSystem {
			counts[from+i] = opt.Counter.Record(r)
		}
	})
	var prev *transcript.Record
	if latest >= 0 {
		prev = &recs[latest]
	}
	p, skip := plan(spanOf{
		n: len(recs), latest: latest, previous: prev,
		role:  func(i int) transcript.Role { return recs[i].Message.Role },
		count: func(i int) int { return counts[i] },
		span:  func(keepLast int) transcript.Span { return transcript.SummarySpan(recs, keepLast) },
	}, opt)
	if p == nil {
		return nil, skip, nil
	}
	p.Records, p.counts = recs, counts
	for _, i := range p.Span.Covered {
		if recs[i].Message.Role != transcript.RoleSummary {
			p.Covered = append(p.Covered, recs[i])
		}
	}
	p.anchorID = recs[p.Span.Anchor].ID
	p.coveredFrom = p.Covered[0].Metadata.Timing.Creation
	p.coveredTo = p.Covered[len(p.Covered)-1].Metadata.Timing.Creation
	p.firstID, p.lastID = originalIDs(p.Covered)
	p.each = sliceStream(p.Covered)
	if err := p.finish(opt, withText); err != nil {
		return nil, "", err
	}
	return p, "", nil
}

// spanOf is what planning needs of a transcript from its latest summary
// on (indexes count from the transcript's start), held or streamed.
type spanOf struct {
	n        int
	latest   int                // the latest summary's index, or -1
	previous *transcript.Record // the latest summary, or nil
	role     func(i int) transcript.Role
	count    func(i int) int // tokens the LLM is sent of record i
	span     func(keepLast int) transcript.Span
}

// plan decides whether and what to summarize, and the budget; nil and the
// reason when there is nothing to do.
func plan(t spanOf, opt Options) (*Plan, Skip) {
	before := 0
	for i := max(t.latest, 0); i < t.n; i++ {
		before += t.count(i)
	}
	if opt.IfOver > 0 && before <= opt.IfOver {
		return nil, SkipTrigger
	}
	if opt.Every > 0 && t.n-t.latest-1 < opt.Every {
		return nil, SkipTrigger
	}
	span := t.span(opt.KeepLast)
	if span.Empty() {
		if n := countTurnsOf(t); opt.KeepLast > 0 && n > 0 {
			return nil, skipKeptLast(opt.KeepLast, n)
		}
		return nil, SkipNothing
	}
	p := &Plan{Span: span, TokensBefore: before}
	for _, i := range span.Covered {
		if t.role(i) == transcript.RoleSummary {
			p.Previous = t.previous
			p.CoveredTokens += previousCovered(t.previous, opt.Counter)
			continue
		}
		p.CoveredTokens += t.count(i)
	}
	// A summary stands in for the span as the LLM sees it (the previous
	// summary as it is, not what it stands for), and is shorter than it:
	// a span of a few tokens gets a summary of fewer still, never one that
	// costs more than it saves.
	spanTokens := 0
	for _, i := range span.Covered {
		spanTokens += t.count(i)
	}
	p.Budget = max(1, min(summaryBudget(opt, p.CoveredTokens), spanTokens-1))
	for i := span.Anchor + 1; i < t.n; i++ {
		if t.role(i) != transcript.RoleSummary {
			p.tailTokens += t.count(i)
		}
	}
	if p.Previous != nil {
		p.previousID = p.Previous.ID
	}
	return p, ""
}

// finish grows the ledger over the records folded in (p.each) and makes
// the summarizer's input; withText renders Input.Text.
func (p *Plan) finish(opt Options, withText bool) error {
	ledger, err := carryLedger(p.Previous, p.Covered, p.each, opt.LedgerSize, max(1, p.Budget/ledgerShare), opt.Counter.Count)
	if err != nil {
		return err
	}
	p.Ledger = ledger
	text := ""
	if withText {
		if text, err = renderText(opt.Template, p); err != nil {
			return err
		}
	}
	prompt := opt.Prompt
	if prompt == "" {
		prompt = DefaultPrompt
	}
	// The summarizer writes within what the ledger leaves of the budget.
	factsTokens := ledgerCost(p.Ledger, opt.Counter)
	p.Input = Input{
		Instruction: prompt, Text: text, Previous: p.previousText(), Records: p.Covered,
		MaxTokens: max(p.Budget-factsTokens, 1), Facts: p.Ledger, FactsTokens: factsTokens,
	}
	if p.Covered == nil {
		p.Input.Each = p.each
	}
	return nil
}

// countTurns counts the turns after the latest summary: user records with
// something after them.
func countTurnsOf(t spanOf) int {
	n := 0
	for i := t.latest + 1; i < t.n-1; i++ {
		if t.role(i) == transcript.RoleUser {
			n++
		}
	}
	return n
}

// previousText is the previous summary without its ledger section: the
// ledger is carried separately, through aux.
func (p *Plan) previousText() string {
	if p.Previous == nil || len(p.Previous.Message.Contents) == 0 {
		return ""
	}
	text, _, _ := strings.Cut(p.Previous.Message.Contents[0], "\n\n"+ledgerHeading)
	return text
}

// AnchorID is the id of the record the summary is placed after.
func (p *Plan) AnchorID() string { return p.anchorID }

// CoveredIDs are the ids the summary replaces, in order.
func (p *Plan) CoveredIDs() []string {
	if p.Records == nil {
		return p.coveredIDs
	}
	return transcript.CoveredIDs(p.Records, p.Span)
}

// refusal spots answers that are an error or a refusal rather than a summary.
var refusal = lazyRegexp(`(?i)^\s*(error\b|exception\b|i'?m sorry\b|i am sorry\b|i can(no|')t\b|as an ai\b|i'?m unable\b|i am unable\b)`)

// ErrBadSummary is a summarizer answer that must not be stored.
var ErrBadSummary = errors.New("summarizer gave no usable summary")

// Record builds the summary record from the summarizer's output: the text,
// then the fact ledger carried from the previous summary and grown with the
// covered records. id and now come from the caller.
func (p *Plan) Record(out Output, summarizer, id string, now int64, opt Options) (transcript.Record, error) {
	text := strings.TrimSpace(out.Text)
	if text == "" {
		return transcript.Record{}, fmt.Errorf("%w: the answer is empty", ErrBadSummary)
	}
	if refusal().MatchString(text) {
		return transcript.Record{}, fmt.Errorf("%w: the answer looks like an error or a refusal: %.80q", ErrBadSummary, text)
	}
	ledger := p.Ledger
	if missing := missingFacts(text, ledger); len(missing) > 0 {
		text += "\n\n" + ledgerText(missing)
	}
	rec := transcript.Record{
		ID:      id,
		Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{text}},
		Metadata: transcript.Metadata{
			SummaryIDs: p.CoveredIDs(),
			Timing:     transcript.Timing{Creation: now},
		},
	}
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
	if out.InputTokens > 0 || out.OutputTokens > 0 {
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
	rec.Metadata.Aux = make(map[string]json.RawMessage, len(aux))
	for k, v := range aux {
		b, err := json.Marshal(v)
		if err != nil {
			return transcript.Record{}, err
		}
		rec.Metadata.Aux[k] = b
	}
	return rec, nil
}

// ledgerCost is the tokens the ledger's section takes after a summary.
func ledgerCost(facts []Fact, c *tokens.Counter) int {
	if len(facts) == 0 {
		return 0
	}
	return c.Count("\n\n" + ledgerText(facts))
}

// ledgerShare: the ledger gets at most 1/ledgerShare of the budget.
const ledgerShare = 4

// The default budget is a share of what the summary stands for: a
// conversation twice as long keeps twice as much, so the share of it the
// summary keeps, and the share of tokens sent, stay the same however long
// it runs, where a flat budget keeps ever less of a growing conversation
// (600 flat kept 0.35 of LoCoMo's answers, this 0.6 at the same goal of at
// most 0.15 of the tokens sent). The ratio is the cost the caller accepts;
// the ceiling bounds one call's summary whatever the length.
const (
	DefaultSummaryRatio     = 0.11
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

// lazyRegexp compiles a pattern on first use: convo starts a process per
// command, and most commands never summarize.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
