// Command locomo measures what summarizing saves and keeps on LoCoMo
// (snap-research/locomo, ACL 2024): ten very long two-person conversations
// with question/answer items. Each conversation is replayed turn by turn
// (speaker A as user, speaker B as assistant) through the summarize
// package's policy, as `summarize --if-over T --keep-last 4` runs it after
// every turn with the extractive summarizer: Prepare, Summarize, Record,
// PlaceSummary, the steps convo's summarize command takes, in memory so
// that many policies can be tried. It reports:
//
//   - tokens sent: the sum over all turns of the tokens of the LLM view
//     (summary included) with summarization, over the same without;
//   - answers kept: the share of QA answers (normalized text) found in the
//     final summary plus kept window, over the share found in the full history;
//   - word recall: the share of the answers' content words found in the
//     final summary plus window, over those found in the full history;
//   - the same two figures for a plain recent window of the same size (the
//     last messages, as many tokens as summary plus window) with no summary:
//     what the summary adds over truncating;
//   - cross-validation: the budget constants chosen on five conversations
//     (the largest budget with tokens sent at most 0.147, see roomier),
//     reported on the other five, and the reverse, in-sample beside
//     out-of-sample.
//
// The dataset is read from -data and never copied.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

type turn struct {
	Speaker, Text string
}

type qa struct {
	Answer any `json:"answer"`
}

type sample struct {
	name  string
	turns []turn
	qa    []qa
}

// policy is the budget of a summary: a share of the tokens it covers,
// within a ceiling (the summarize flags --summary-ratio and
// --max-summary-tokens).
type policy struct {
	ratio   float64
	ceiling int
}

func (p policy) String() string {
	return fmt.Sprintf("--summary-ratio %g --max-summary-tokens %d", p.ratio, p.ceiling)
}

// tokensGoal is the bound on tokens sent; a policy is chosen on a half
// only if it stays tokensMargin under it there, since tokens sent moves
// with the lengths of the conversations (by about 0.002 between the
// halves at one ratio) and a hard bound is met with room.
const (
	tokensGoal   = 0.15
	tokensMargin = 0.003
)

func main() {
	dataset := flag.String("data", "../shared/eval/locomo10.zip", "the LoCoMo zip")
	ifOver := flag.Int("if-over", 1000, "--if-over")
	keepLast := flag.Int("keep-last", 4, "--keep-last")
	ratio := flag.Float64("summary-ratio", summarize.DefaultSummaryRatio, "--summary-ratio")
	ceiling := flag.Int("max-summary-tokens", summarize.DefaultMaxSummaryTokens, "--max-summary-tokens")
	cv := flag.Bool("cv", true, "cross-validate the budget constants on the two halves")
	limit := flag.Int("conversations", 0, "only the first N conversations (0: all)")
	ledgerSize := flag.Int("ledger-size", summarize.DefaultLedgerSize, "--ledger-size")
	halvesToo := flag.Bool("halves", true, "report each half besides all conversations")
	flag.BoolVar(&verbose, "v", false, "print the answers found in the history but lost")
	flag.BoolVar(&dumpView, "dump", false, "print each conversation's final view")
	flag.Parse()

	samples, err := load(*dataset)
	if err != nil {
		log.Fatal(err)
	}
	if *limit > 0 && *limit < len(samples) {
		samples = samples[:*limit]
	}
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		log.Fatal(err)
	}
	nTurns, nQA := 0, 0
	for _, s := range samples {
		nTurns += len(s.turns)
		nQA += len(s.qa)
	}
	run := runner{counter: counter, ifOver: *ifOver, keepLast: *keepLast, ledgerSize: *ledgerSize}
	fmt.Printf("LoCoMo: %d conversations, %d turns, %d QA items; summarize --if-over %d --keep-last %d, extractive\n",
		len(samples), nTurns, nQA, *ifOver, *keepLast)
	half := len(samples) / 2
	halves := []struct {
		name    string
		samples []sample
	}{{"all", samples}, {"A", samples[:half]}, {"B", samples[half:]}}
	def := policy{*ratio, *ceiling}
	fmt.Printf("\n%s:\n", def)
	fmt.Println(header)
	for _, h := range halves {
		if !*halvesToo && h.name != "all" {
			continue
		}
		start := time.Now()
		fmt.Println(run.all(h.samples, def).row(h.name+" "+names(h.samples), time.Since(start)))
	}
	if !*cv || half == 0 {
		return
	}
	// The constants a half would choose, among a grid around the default
	// that holds it, and what they keep on the half they were not chosen on.
	grid := []policy{}
	for i := range 11 { // 0.100 to 0.120
		for _, c := range []int{summarize.DefaultMaxSummaryTokens, 3000} {
			grid = append(grid, policy{float64(100+2*i) / 1000, c})
		}
	}
	fmt.Printf("\ncross-validation: constants chosen on one half (the largest budget with tokens sent <= %.3f) among %d, reported on the other\n", tokensGoal-tokensMargin, len(grid))
	results := make([][]result, 2)
	for i, h := range halves[1:] {
		for _, p := range grid {
			results[i] = append(results[i], run.all(h.samples, p))
		}
	}
	fmt.Printf("%-6s %-52s %-28s %-28s\n", "chosen", "constants", "in-sample (kept, recall)", "out-of-sample (kept, recall, tokens)")
	for i, h := range halves[1:] {
		best := -1
		for j, r := range results[i] {
			if r.tokensSent() <= tokensGoal-tokensMargin && (best < 0 || roomier(grid[j], r, grid[best], results[i][best])) {
				best = j
			}
		}
		if best < 0 {
			fmt.Printf("%-6s no constants meet tokens sent <= %.3f\n", h.name, tokensGoal-tokensMargin)
			continue
		}
		in, out := results[i][best], results[1-i][best]
		fmt.Printf("on %-3s %-52s %.3f, %.3f (tokens %.3f)     %.3f, %.3f, %.3f on %s\n", h.name, grid[best], in.kept(), in.recall(), in.tokensSent(),
			out.kept(), out.recall(), out.tokensSent(), halves[2-i].name)
	}
}

// roomier reports whether policy p, which gave r, is chosen over q, which
// gave o: the larger share first, then the larger ceiling, then the more
// answers kept. One run's answers kept moves by ±0.01 between neighboring
// shares (the greedy is chaotic over hundreds of progressive steps), so
// choosing the most kept would choose noise; a larger budget keeps more
// in expectation, so the choice is the largest the bound allows.
func roomier(p policy, r result, q policy, o result) bool {
	if p.ratio != q.ratio {
		return p.ratio > q.ratio
	}
	if p.ceiling != q.ceiling {
		return p.ceiling > q.ceiling
	}
	return r.kept() > o.kept()
}

const header = "sample                         tokens sent  answers kept  word recall | window: kept  recall | summary max  mean  summaries  seconds"

var verbose, dumpView bool

type result struct {
	sentWith, sentWithout       int
	keptFound, historyFound     int
	windowFound                 int
	keptWords, historyWords     int
	windowWords                 int
	summarySizes                []int
	summaryTokens, summaryCount int
}

func (r *result) add(o result) {
	r.sentWith += o.sentWith
	r.sentWithout += o.sentWithout
	r.keptFound += o.keptFound
	r.historyFound += o.historyFound
	r.windowFound += o.windowFound
	r.keptWords += o.keptWords
	r.historyWords += o.historyWords
	r.windowWords += o.windowWords
	r.summarySizes = append(r.summarySizes, o.summarySizes...)
}

func (r result) tokensSent() float64 { return float64(r.sentWith) / float64(r.sentWithout) }
func (r result) kept() float64       { return float64(r.keptFound) / float64(r.historyFound) }
func (r result) recall() float64     { return float64(r.keptWords) / float64(r.historyWords) }

func (r result) row(name string, took time.Duration) string {
	sizes := slicesSorted(r.summarySizes)
	maxSize, mean := 0, 0.0
	for _, n := range sizes {
		mean += float64(n)
	}
	if len(sizes) > 0 {
		maxSize = sizes[len(sizes)-1]
		mean /= float64(len(sizes))
	}
	return fmt.Sprintf("%-30s %11.3f %13.3f %12.3f | %12.3f %7.3f | %11d %5.0f %10d %8.1f", name,
		r.tokensSent(), r.kept(), r.recall(),
		float64(r.windowFound)/float64(r.historyFound), float64(r.windowWords)/float64(r.historyWords),
		maxSize, mean, len(sizes), took.Seconds())
}

func slicesSorted(xs []int) []int {
	out := append([]int(nil), xs...)
	sort.Ints(out)
	return out
}

type runner struct {
	counter                      *tokens.Counter
	ifOver, keepLast, ledgerSize int
}

// all replays the samples under p, two at a time, and sums the results.
func (run runner) all(samples []sample, p policy) result {
	results := make([]result, len(samples))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, s := range samples {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r, err := run.replay(s, p)
			if err != nil {
				log.Fatalf("%s: %v", s.name, err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	var sum result
	for _, r := range results {
		sum.add(r)
	}
	return sum
}

// replay runs one conversation through summarizing after every turn.
func (run runner) replay(s sample, p policy) (result, error) {
	var r result
	ctx := context.Background()
	opt := summarize.Options{
		KeepLast: run.keepLast, IfOver: run.ifOver, Counter: run.counter,
		MaxSummaryTokens: p.ceiling, SummaryRatio: p.ratio, LedgerSize: run.ledgerSize,
	}
	ex := &summarize.Extractive{Counter: run.counter}
	ids := transcript.NewIDs()
	clock := int64(1_700_000_000_000)
	now := func() int64 { clock++; return clock }
	app := transcript.NewAppender(s.name, nil, ids, now)
	speakerA := s.turns[0].Speaker
	var tail []transcript.Record
	summaryTokens := map[string]int{}
	var history []string // each message as the view sends it
	historyTokens := 0
	for _, t := range s.turns {
		role := transcript.RoleAssistant
		if t.Speaker == speakerA {
			role = transcript.RoleUser
		}
		text := t.Speaker + ": " + t.Text
		for _, ch := range app.Append(transcript.Record{Message: transcript.Message{Role: role, Contents: []string{text}}}) {
			if ch.Kind == transcript.Merged {
				for i := len(tail) - 1; i >= 0; i-- {
					if tail[i].ID == ch.Record.ID {
						tail[i] = ch.Record.Clone()
						break
					}
				}
				continue
			}
			tail = append(tail, ch.Record.Clone())
		}
		history = append(history, text)
		historyTokens += run.counter.Count(text)
		plan, _, err := summarize.Prepare(tail, opt)
		if err != nil {
			return r, err
		}
		if plan != nil {
			out, err := ex.Summarize(ctx, plan.Input)
			if err != nil {
				return r, err
			}
			stamp := now()
			sum, err := plan.Record(out, ex.Name(), ids.New(stamp), stamp, opt)
			if err != nil {
				return r, err
			}
			tail = transcript.PlaceSummary(tail, sum, plan.Span, false)
			tail = tail[transcript.LatestSummary(tail):]
			n := run.counter.Record(&sum)
			summaryTokens[sum.ID] = n
			r.summarySizes = append(r.summarySizes, n)
		}
		r.sentWith += run.viewTokens(tail, summaryTokens)
		r.sentWithout += historyTokens
	}
	viewTokens := run.viewTokens(tail, summaryTokens)
	if dumpView {
		for _, rec := range tail {
			fmt.Printf("[%s] %s\n", rec.Message.Role, strings.Join(rec.Message.Contents, "\n"))
		}
	}
	var view strings.Builder
	for _, rec := range tail {
		if rec.Message.Role != transcript.RoleSystem {
			view.WriteString(strings.Join(rec.Message.Contents, "\n") + "\n")
		}
	}
	// The plain window: the latest messages, as many tokens as the view.
	var window []string
	used := 0
	for i := len(history) - 1; i >= 0; i-- {
		n := run.counter.Count(history[i])
		if used+n > viewTokens {
			break
		}
		used += n
		window = append(window, history[i])
	}
	kept, hist, win := normalize(view.String()), normalize(strings.Join(history, "\n")), normalize(strings.Join(window, "\n"))
	keptSet, histSet, winSet := wordSet(kept), wordSet(hist), wordSet(win)
	for _, q := range s.qa {
		if q.Answer == nil {
			continue // adversarial items carry no answer
		}
		a := normalize(fmt.Sprint(q.Answer))
		if strings.TrimSpace(a) == "" {
			continue
		}
		for _, w := range contentWords(a) {
			if histSet[w] {
				r.historyWords++
				if keptSet[w] {
					r.keptWords++
				}
				if winSet[w] {
					r.windowWords++
				}
			}
		}
		if strings.Contains(hist, a) {
			r.historyFound++
			if strings.Contains(kept, a) {
				r.keptFound++
			} else if verbose {
				fmt.Printf("  lost (%s): %v\n", s.name, q.Answer)
			}
			if strings.Contains(win, a) {
				r.windowFound++
			}
		}
	}
	return r, nil
}

// viewTokens counts what the LLM is sent: the latest summary and the
// records after it, system records aside.
func (run runner) viewTokens(tail []transcript.Record, summaryTokens map[string]int) int {
	n := 0
	for i := range tail {
		switch tail[i].Message.Role {
		case transcript.RoleSystem:
		case transcript.RoleSummary:
			n += summaryTokens[tail[i].ID]
		default:
			n += run.counter.Record(&tail[i])
		}
	}
	return n
}

var nonWord = regexp.MustCompile(`[^\p{L}\p{N}]+`)
