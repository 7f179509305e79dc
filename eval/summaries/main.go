// Command summaries measures what summarizing saves and keeps, domain by
// domain (make eval):
//
//   - locomo: LoCoMo (snap-research/locomo, ACL 2024), ten very long
//     two-person chats with question/answer items, read from -data and
//     never copied;
//   - support: generated customer support and operations chats whose
//     identifiers of every shape are the questions (eval/domains);
//   - agent: generated coding-agent sessions with tool calls and results,
//     some with a hundred calls after one prompt (eval/domains).
//
// Both generated domains also ask for facts in words (preferences,
// constraints, causes, decisions): their "prose" columns score them as
// LoCoMo's answers are, apart from the identifiers.
//
// The generated domains also hold conversations that test meaning
// (-support-meaning, -agent-meaning; eval/domains/meaning.go), and every
// domain gets the columns of issue 37 (eval/README.md): the final
// summaries' notes read by the clause rule (not verbatim, negation flips,
// whole clauses), standing instructions kept whole, and on agent sessions
// the first and latest requests, error lines kept, and ledger entries
// read from tool bodies.
//
// Each conversation is appended message by message and summarized after
// each as `summarize --if-over 1000 --keep-last 4` would with the
// extractive summarizer (Prepare, Summarize, Record, PlaceSummary, in
// memory). Per domain it reports tokens sent (the whole replay, and the
// worst conversation longer than 20,000 tokens), identifiers kept verbatim
// and with their label words, answers kept and answer-word recall (and the
// same for the facts in words), and the same for a plain recent window of
// the same size. The budget constants are
// chosen by one rule (the largest share with tokens sent at most 0.147 on
// every domain it is chosen on): the default on all domains, and each
// domain's out-of-sample figure on the others (leave-one-domain-out).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"regexp"
	"slices"
	"sync"

	"github.com/convo-cli/convo/eval/domains"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/tokens"
)

// tokensGoal bounds tokens sent; a policy is chosen only if it stays
// tokensMargin under it, since tokens sent moves with the conversations'
// lengths and a hard bound is met with room.
const (
	tokensGoal   = 0.15
	tokensMargin = 0.003
)

var (
	verbose bool
	dump    string // a conversation whose final view is printed
)

func printf(format string, a ...any) { fmt.Printf(format, a...) }

// segmenter parts a view into the places a label must share with its
// identifier: lines, ledger entries, a note's clauses and sides.
var segmenter = regexp.MustCompile(`\n| \| |; |→`)

var nonWord = regexp.MustCompile(`[^\p{L}\p{N}]+`)

type domain struct {
	name          string
	conversations []domains.Conversation
}

func main() {
	data := flag.String("data", "", "LoCoMo's locomo10.zip (default: $EVAL_DATA, else ../shared/eval/locomo10.zip if it exists)")
	seed := flag.Int64("seed", 1, "the generated domains' seed")
	nSupport := flag.Int("support", 24, "generated support conversations")
	nAgent := flag.Int("agent", 12, "generated agent sessions")
	nSupportMeaning := flag.Int("support-meaning", 8, "support chats with negated statements and standing instructions, added to the support domain")
	nAgentMeaning := flag.Int("agent-meaning", 6, "agent sessions with error lines past a result's first line and files full of declarations, added to the agent domain")
	ifOver := flag.Int("if-over", 1000, "--if-over")
	keepLast := flag.Int("keep-last", 4, "--keep-last")
	ratioFlag := flag.Float64("summary-ratio", summarize.DefaultSummaryRatio, "--summary-ratio")
	ceiling := flag.Int("max-summary-tokens", summarize.DefaultMaxSummaryTokens, "--max-summary-tokens")
	keepTokens := flag.Int("keep-last-tokens", summarize.DefaultKeepLastTokens, "--keep-last-tokens")
	ledgerSize := flag.Int("ledger-size", summarize.DefaultLedgerSize, "--ledger-size")
	cv := flag.Bool("cv", true, "choose the ratio leave-one-domain-out")
	only := flag.String("domain", "", "only this domain")
	flag.BoolVar(&verbose, "v", false, "print the answers found in the history but lost")
	flag.StringVar(&dump, "dump", "", "print this conversation's final view")
	flag.Parse()

	var doms []domain
	if path := locomoPath(*data); path != "" {
		convs, err := loadLoCoMo(path)
		if err != nil {
			log.Fatal(err)
		}
		doms = append(doms, domain{"locomo", convs})
	} else {
		fmt.Println("locomo: no data (give -data or EVAL_DATA=PATH; see docs/summarize.md)")
	}
	doms = append(doms, domain{"support", append(domains.Support(*seed, *nSupport), domains.SupportMeaning(*seed, *nSupportMeaning)...)},
		domain{"agent", append(domains.Agent(*seed, *nAgent), domains.AgentMeaning(*seed, *nAgentMeaning)...)})
	if *only != "" {
		doms = slices.DeleteFunc(doms, func(d domain) bool { return d.name != *only })
	}
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		log.Fatal(err)
	}
	rp := replayer{counter: counter, ifOver: *ifOver, keepLast: *keepLast, ledgerSize: *ledgerSize}
	def := policy{*ratioFlag, *ceiling, *keepTokens}
	fmt.Printf("summarize --if-over %d --keep-last %d --summary-ratio %g --max-summary-tokens %d --keep-last-tokens %d, extractive\n\n",
		*ifOver, *keepLast, def.ratio, def.ceiling, def.keepTokens)
	fmt.Println(header)
	at := map[string]map[policy]result{}
	for _, d := range doms {
		at[d.name] = map[policy]result{def: rp.all(d.conversations, def)}
		fmt.Println(row(d.name, at[d.name][def]))
	}
	if !*cv || len(doms) < 2 {
		return
	}
	grid := []policy{}
	for _, r := range []float64{0.10, 0.11, 0.116, 0.12, 0.13} {
		grid = append(grid, policy{r, def.ceiling, def.keepTokens})
	}
	for _, d := range doms {
		for _, p := range grid {
			if _, ok := at[d.name][p]; !ok {
				at[d.name][p] = rp.all(d.conversations, p)
			}
		}
	}
	fmt.Printf("\nleave-one-domain-out: --summary-ratio chosen on the other domains (the largest with tokens sent <= %.3f over their conversations longer than 20,000 tokens, and over LoCoMo's whole replay), reported here\n", tokensGoal-tokensMargin)
	fmt.Println(header)
	for _, d := range doms {
		var others []string
		for _, o := range doms {
			if o.name != d.name {
				others = append(others, o.name)
			}
		}
		p, ok := choose(grid, others, at)
		if !ok {
			fmt.Printf("%-8s no ratio meets the bound on %v\n", d.name, others)
			continue
		}
		fmt.Println(row(fmt.Sprintf("%s@%g", d.name, p.ratio), at[d.name][p]))
	}
	var all []string
	for _, d := range doms {
		all = append(all, d.name)
	}
	if p, ok := choose(grid, all, at); ok {
		fmt.Printf("\nchosen on all domains: --summary-ratio %g (the default is %g)\n", p.ratio, def.ratio)
	}
}

// choose is the largest ratio of grid whose tokens sent stays
// tokensMargin under the bound on every domain named, as the goals put
// it: over the conversations longer than 20,000 tokens, and over LoCoMo's
// whole replay.
func choose(grid []policy, names []string, at map[string]map[policy]result) (policy, bool) {
	best, ok := policy{}, false
	for _, p := range grid {
		fits := true
		for _, n := range names {
			r := at[n][p]
			if r.longSent() > tokensGoal-tokensMargin || n == "locomo" && r.tokensSent() > tokensGoal-tokensMargin {
				fits = false
			}
		}
		if fits && (!ok || p.ratio > best.ratio) {
			best, ok = p, true
		}
	}
	return best, ok
}

// locomoPath is where LoCoMo is: the flag, EVAL_DATA, or the shared copy.
func locomoPath(flagged string) string {
	for _, p := range []string{flagged, os.Getenv("EVAL_DATA"), "../shared/eval/locomo10.zip"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil || p == flagged {
			return p
		}
	}
	return ""
}

const header = "domain          convs  sent  >20k  worst>20k(n) | ids  kept  labeled | answers kept recall | prose n  kept recall | window: ids  kept  recall  prose recall | summary max |" + meaningHeader

func row(name string, r result) string {
	worst := "    -    "
	if r.long > 0 {
		worst = fmt.Sprintf("%5.3f (%d)", r.worst, r.long)
	}
	ids := "   -     -      -   "
	if r.ids > 0 {
		ids = fmt.Sprintf("%4d %5.3f %7.3f", r.ids, ratio(r.idsKept, r.ids), ratio(r.idsLabeled, r.idsKept))
	}
	winIDs := "  -  "
	if r.ids > 0 {
		winIDs = fmt.Sprintf("%5.3f", ratio(r.idsWindow, r.ids))
	}
	prose, winProse := "      -     -      -", "    -      -"
	if p := r.prose; p.found > 0 {
		prose = fmt.Sprintf("%7d %5.3f %6.3f", p.found, p.keptShare(), p.recall())
		winProse = fmt.Sprintf("%5.3f %6.3f", p.windowShare(), p.windowRecall())
	}
	return fmt.Sprintf("%-15s %5d %5.3f %5.3f %-12s | %s | %12.3f %6.3f | %s | %11s %5.3f %7.3f  %s | %11d |", name, r.conversations,
		r.tokensSent(), r.longSent(), worst, ids, r.answers.keptShare(), r.answers.recall(), prose,
		winIDs, r.answers.windowShare(), r.answers.windowRecall(), winProse, r.summaryMax) + meaningRow(r)
}

// meaningHeader and meaningRow are the columns of issue 37 (eval/README.md
// says what each counts): the final summaries' notes (not rendered tool
// calls), how many are not found verbatim, how many lack a negation cue of
// their clause (flips), the share of the others that are whole clauses;
// standing instructions kept whole in the final view; on sessions with
// tool calls, the share whose first and latest user messages are both kept
// verbatim, the tool results' error lines and the share kept verbatim, and
// the ledger entries read from tool bodies only (of which function or type
// names).
const meaningHeader = " notes    nv flips whole | instr  kept | sessions reqs | errors  kept | body names"

func meaningRow(r result) string {
	n := r.notes
	notes := fmt.Sprintf("%6d %5d %5d %5.3f", n.Notes, n.NotVerbatim, n.Flips, ratio(n.Whole, n.Notes-n.NotVerbatim))
	instr := "    -     -"
	if r.instr > 0 {
		instr = fmt.Sprintf("%5d %5.3f", r.instr, ratio(r.instrKept, r.instr))
	}
	agent := "       -    - |      -     - |    -     -"
	if r.sessions > 0 {
		agent = fmt.Sprintf("%8d %4.2f | %6d %5.3f | %4d %5d", r.sessions, ratio(r.requestsKept, r.sessions), r.errLines, ratio(r.errKept, r.errLines), r.bodyEntries, r.bodyNames)
	}
	return fmt.Sprintf(" %s | %s | %s", notes, instr, agent)
}

// all replays the conversations under p, two at a time, and sums them.
func (rp replayer) all(convs []domains.Conversation, p policy) result {
	results := make([]result, len(convs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, c := range convs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r, err := rp.replay(c, p)
			if err != nil {
				log.Fatalf("%s: %v", c.Name, err)
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
