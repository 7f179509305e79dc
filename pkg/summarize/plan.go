package summarize

// Planning a summary: what it covers and what the summarizer gets.

import (
	"errors"
	"strings"

	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/summarize/internal/work"
	"github.com/convo-cli/convo/pkg/transcript"
)

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
	Ledger []facts.Fact
	// LedgerDropped counts the entries dropped past the ledger's bound,
	// by this summary and those before it.
	LedgerDropped int
	// Sections are an agent session's sections (facts.Sections), within
	// their bounds, carried in aux.sections; sectionsText is their text,
	// which opens the summary's ("" for none).
	Sections     facts.Sections
	sectionsText string
	counts       []int // tokens of each record the LLM is sent, by index

	// What Record needs of the span, known once the span is planned (or,
	// streamed, once its records have passed): the records the LLM is
	// sent after the anchor, the creation times of the first and last
	// records folded in, and the ids of the first and last original ones.
	tailTokens             int
	coveredFrom, coveredTo int64
	firstID, lastID        string
	anchorID               string
	coveredIDs             []string // streamed only: Records is nil
	each                   transcript.Stream
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
	work.ForEach(len(recs)-from, func(i int) {
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
		span: func(keepLast, keepTokens int) transcript.Span {
			return transcript.SummarySpanOf(len(recs), func(i int) transcript.SpanRecord {
				sr := transcript.SpanRecordOf(&recs[i])
				sr.Tokens = counts[i]
				return sr
			}, keepLast, keepTokens)
		},
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
	p.each = transcript.Slice(p.Covered...)
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
	span     func(keepLast, keepTokens int) transcript.Span
}

// plan decides whether and what to summarize, and the budget; nil and the
// reason when there is nothing to do.
func plan(t spanOf, opt Options) (*Plan, Skip) {
	before := 0
	for i := max(t.latest, 0); i < t.n; i++ {
		before += t.count(i)
	}
	if opt.IfOver > 0 && before <= opt.IfOver {
		return nil, skipf(SkipTrigger, "the LLM view holds %s, not over --if-over %d", plural(before, "token"), opt.IfOver)
	}
	if n := t.n - t.latest - 1; opt.Every > 0 && n < opt.Every {
		return nil, skipf(SkipTrigger, "%s since the latest summary, fewer than --every %d", plural(n, "record"), opt.Every)
	}
	span := t.span(opt.KeepLast, opt.KeepLastTokens)
	if span.Empty() {
		if n := countTurnsOf(t); opt.KeepLast > 0 && n > 0 {
			return nil, skipKeptLast(opt.KeepLast, n)
		}
		return nil, skipf(SkipNothing, "%s since the latest summary, no complete turn to fold (an unanswered last user record is never covered)", plural(t.n-t.latest-1, "record"))
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
	sb := facts.NewSectionBuilder(previousSections(p.Previous))
	ledger, dropped, err := carryLedger(p.Previous, p.Covered, p.each, opt.LedgerSize, sb)
	if err != nil {
		return err
	}
	p.Ledger, p.LedgerDropped = ledger, dropped
	// An agent session's sections are bounded within their share of the
	// budget (facts.Fit) and come out of it as the ledger does.
	if sections, shown := sb.Sections(); shown {
		p.Sections, p.sectionsText = sections.Fit(p.Budget, opt.Counter)
	} else {
		p.Sections = sections // only the first request, carried
	}
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
	// The ledger is protected: the summarizer writes within what it
	// leaves of the budget, and a share of the budget at least.
	// The sections' tokens come out of the budget too, and the ledger's
	// entries they hold are not repeated after them.
	inLedger := p.ledgerAfterSections()
	factsTokens := facts.Cost(inLedger, p.LedgerDropped, opt.Counter)
	sectionsTokens := 0
	if p.sectionsText != "" {
		sectionsTokens = opt.Counter.Count(p.sectionsText + "\n\n")
	}
	p.Input = Input{Instruction: prompt, Text: text, PreviousSummary: p.Previous,
		Previous: p.previousText(), Records: p.Covered,
		MaxTokens: max(p.Budget-factsTokens-sectionsTokens, p.Budget/notesShare, 1), Facts: inLedger, FactsDropped: p.LedgerDropped, FactsTokens: factsTokens,
		Tools: p.sectionsText != "",
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

// previousText is the previous summary without its sections and its
// ledger: both are carried separately, through aux.
func (p *Plan) previousText() string {
	if p.Previous == nil || len(p.Previous.Message.Contents) == 0 {
		return ""
	}
	text := p.Previous.Message.Contents[0]
	if _, ok := p.Previous.Metadata.Aux["sections"]; ok {
		text = facts.CutSections(text)
	}
	text, _, _ = strings.Cut(text, "\n\n"+facts.Heading)
	if strings.HasPrefix(text, facts.Heading) {
		return ""
	}
	return text
}

// ledgerAfterSections is the ledger less the call arguments (a command, a
// path) the sections show already, verbatim.
func (p *Plan) ledgerAfterSections() []facts.Fact {
	if p.sectionsText == "" {
		return p.Ledger
	}
	var out []facts.Fact
	for _, f := range p.Ledger {
		if f.Kind == "argument" && strings.Contains(p.sectionsText, f.Text) {
			continue
		}
		out = append(out, f)
	}
	return out
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
