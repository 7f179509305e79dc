package main

// Replaying one conversation through progressive summarizing, and what
// its final view keeps.

import (
	"context"
	"strings"

	"github.com/convo-cli/convo/eval/domains"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// policy is what a run varies: the summary's budget (--summary-ratio,
// --max-summary-tokens) and the kept window's bound in tokens
// (--keep-last-tokens).
type policy struct {
	ratio      float64
	ceiling    int
	keepTokens int
}

// result is what one conversation, or a sum of them, came to.
type result struct {
	conversations int
	// Tokens the LLM is sent over the whole replay, with summarizing and
	// without; worst is the highest share of one conversation whose
	// history exceeds longHistory tokens (0: none does), long how many do.
	sentWith, sentWithout int
	worst                 float64
	long                  int
	// The same sums over the conversations longer than longHistory.
	longWith, longWithout int
	// Identifiers first said in the span the final summary covers: how
	// many, kept verbatim in summary plus window, kept with their label
	// words beside them, and in a plain recent window of the same size.
	ids, idsKept, idsLabeled, idsWindow int
	// Answers (LoCoMo's, the generated domains' identifiers) and the
	// generated domains' facts in words (prose), each scored as LoCoMo's
	// answers are.
	answers, prose        answerScore
	summaries, summaryMax int
	// Meaning (issue 37): the final summary's notes checked by the clause
	// rule; the standing instructions kept whole; on conversations with
	// tool calls, sessions whose first and latest user messages are both
	// kept verbatim, the tool results' error lines kept verbatim, and the
	// ledger's entries taken from tool bodies (names: function or type
	// names among them).
	notes                  domains.NoteScore
	instr, instrKept       int
	sessions, requestsKept int
	errLines, errKept      int
	bodyEntries, bodyNames int
}

// answerScore: answers found in the history, kept in the final view, in
// the plain window; their content words likewise.
type answerScore struct {
	found, kept, windowKept       int
	words, wordsKept, wordsWindow int
}

func (a *answerScore) add(o answerScore) {
	a.found += o.found
	a.kept += o.kept
	a.windowKept += o.windowKept
	a.words += o.words
	a.wordsKept += o.wordsKept
	a.wordsWindow += o.wordsWindow
}

func (a answerScore) keptShare() float64   { return ratio(a.kept, a.found) }
func (a answerScore) recall() float64      { return ratio(a.wordsKept, a.words) }
func (a answerScore) windowShare() float64 { return ratio(a.windowKept, a.found) }
func (a answerScore) windowRecall() float64 {
	return ratio(a.wordsWindow, a.words)
}

// longHistory: a conversation longer than this must keep its tokens sent
// under the bound by itself; a shorter one's floor is the trigger plus the
// window.
const longHistory = 20000

func (r *result) add(o result) {
	r.conversations += o.conversations
	r.sentWith += o.sentWith
	r.sentWithout += o.sentWithout
	r.worst = max(r.worst, o.worst)
	r.long += o.long
	r.longWith += o.longWith
	r.longWithout += o.longWithout
	r.ids += o.ids
	r.idsKept += o.idsKept
	r.idsLabeled += o.idsLabeled
	r.idsWindow += o.idsWindow
	r.answers.add(o.answers)
	r.prose.add(o.prose)
	r.summaries += o.summaries
	r.summaryMax = max(r.summaryMax, o.summaryMax)
	r.notes.Add(o.notes)
	r.instr += o.instr
	r.instrKept += o.instrKept
	r.sessions += o.sessions
	r.requestsKept += o.requestsKept
	r.errLines += o.errLines
	r.errKept += o.errKept
	r.bodyEntries += o.bodyEntries
	r.bodyNames += o.bodyNames
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (r result) tokensSent() float64 { return ratio(r.sentWith, r.sentWithout) }

// longSent is tokens sent over the conversations longer than longHistory:
// the ones the bound is for (a short one's floor is the trigger plus the
// window).
func (r result) longSent() float64 { return ratio(r.longWith, r.longWithout) }

type replayer struct {
	counter          *tokens.Counter
	ifOver, keepLast int
	ledgerSize       int
}

// replay appends the conversation's messages one by one, summarizing after
// each as `summarize --if-over T --keep-last N` would, and measures the
// final view.
func (rp replayer) replay(c domains.Conversation, p policy) (result, error) {
	r := result{conversations: 1}
	opt := summarize.Options{
		KeepLast: rp.keepLast, KeepLastTokens: p.keepTokens, IfOver: rp.ifOver, Counter: rp.counter,
		MaxSummaryTokens: p.ceiling, SummaryRatio: p.ratio, LedgerSize: rp.ledgerSize,
	}
	ex := &extractive.Summarizer{Counter: rp.counter}
	ids := transcript.NewIDs()
	clock := int64(1_700_000_000_000)
	now := func() int64 { clock++; return clock }
	app := transcript.NewAppender(c.Name, nil, ids, now)
	var tail []transcript.Record
	summaryTokens := map[string]int{}
	recordOf := make([]string, len(c.Messages)) // the record each message went into
	historyTokens := 0
	for i, m := range c.Messages {
		for _, ch := range app.Append(transcript.Record{Message: m}) {
			recordOf[i] = ch.Record.ID
			if ch.Kind == transcript.Merged {
				for j := len(tail) - 1; j >= 0; j-- {
					if tail[j].ID == ch.Record.ID {
						tail[j] = ch.Record.Clone()
						break
					}
				}
				continue
			}
			tail = append(tail, ch.Record.Clone())
		}
		historyTokens += rp.counter.Record(&transcript.Record{Message: m})
		plan, _, err := summarize.Prepare(tail, opt)
		if err != nil {
			return r, err
		}
		if plan != nil {
			out, err := ex.Summarize(context.Background(), plan.Input)
			if err != nil {
				return r, err
			}
			stamp := now()
			sum, err := plan.Record(out, ex.Name(), ids.New(stamp), stamp, opt)
			if err != nil {
				return r, err
			}
			var after []transcript.Record
			if plan.Span.Placeholder { // the cut fell inside a turn: rule 2
				after = append(after, transcript.Placeholder(ids.New(stamp), stamp))
			}
			tail = transcript.PlaceSummary(tail, sum, plan.Span, false, after...)
			tail = tail[transcript.LatestSummary(tail):]
			n := rp.counter.Record(&sum)
			summaryTokens[sum.ID] = n
			r.summaries++
			r.summaryMax = max(r.summaryMax, n)
		}
		r.sentWith += rp.viewTokens(tail, summaryTokens)
		r.sentWithout += historyTokens
	}
	if historyTokens > longHistory {
		r.long, r.worst = 1, r.tokensSent()
		r.longWith, r.longWithout = r.sentWith, r.sentWithout
	}
	if verbose {
		printf("  %s: %d messages, %d tokens, sent %.3f, %d summaries\n", c.Name, len(c.Messages), historyTokens, r.tokensSent(), r.summaries)
	}
	rp.measure(&r, c, tail, recordOf, summaryTokens)
	return r, nil
}

// viewTokens counts what the LLM is sent: the latest summary and the
// records after it, system records aside.
func (rp replayer) viewTokens(tail []transcript.Record, summaryTokens map[string]int) int {
	n := 0
	for i := range tail {
		switch tail[i].Message.Role {
		case transcript.RoleSystem:
		case transcript.RoleSummary:
			n += summaryTokens[tail[i].ID]
		default:
			n += rp.counter.Record(&tail[i])
		}
	}
	return n
}

// text is what a message says: its contents and its calls' arguments.
func text(m transcript.Message) string {
	parts := append([]string(nil), m.Contents...)
	for _, tc := range m.ToolCalls {
		parts = append(parts, tc.Name+" "+tc.Arguments)
	}
	return strings.Join(parts, "\n")
}
