package summarize

import (
	"context"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Extractive is the default summarizer: offline, deterministic, byte-stable.
// For every covered turn it keeps the most salient sentence of each message,
// scored by TF-IDF over the sentences of the span, then merges those lines
// with the previous summary's and, past the token budget, drops the lowest
// scoring lines (re-scored against the new span) while keeping their order.
type Extractive struct {
	Counter *tokens.Counter
}

// DefaultMaxSummaryTokens bounds a summary's narrative when no budget is given.
const DefaultMaxSummaryTokens = 600

// Name implements Summarizer.
func (e *Extractive) Name() string { return "extractive" }

// Summarize implements Summarizer; it reads in.Records and in.Previous, not
// in.Text: it needs structure, not prose.
func (e *Extractive) Summarize(_ context.Context, in Input) (Output, error) {
	budget := in.MaxTokens
	if budget <= 0 {
		budget = DefaultMaxSummaryTokens
	}
	var sentences [][]string // terms of every sentence in the span, for idf
	type cand struct {
		text  string
		terms []string
	}
	var newLines []cand
	for _, turn := range turns(in.Records) {
		var parts []string
		var terms []string
		for _, r := range turn {
			best, bestTerms := e.bestSentence(r, &sentences)
			if best == "" {
				continue
			}
			parts = append(parts, label(r)+": "+best)
			terms = append(terms, bestTerms...)
		}
		if len(parts) > 0 {
			newLines = append(newLines, cand{"- " + strings.Join(parts, " / "), terms})
		}
	}
	idf := inverseFrequencies(sentences)
	var lines []scored
	for _, l := range strings.Split(in.Previous, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != summaryHeading {
			lines = append(lines, scored{text: l, score: score(terms(l), idf)})
		}
	}
	for _, c := range newLines {
		lines = append(lines, scored{text: c.text, score: score(c.terms, idf)})
	}
	kept := e.fit(lines, budget-e.Counter.Count(summaryHeading))
	if len(kept) == 0 {
		return Output{}, nil
	}
	return Output{Text: summaryHeading + "\n" + strings.Join(kept, "\n")}, nil
}

const summaryHeading = "Earlier in this conversation:"

type scored struct {
	text  string
	score float64
}

// fit keeps the best scoring lines within budget tokens, in their order.
// A line too long on its own is clipped rather than lost.
func (e *Extractive) fit(lines []scored, budget int) []string {
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	// Ties go to the newer line: it is the one the next turns build on.
	sort.SliceStable(order, func(a, b int) bool {
		if lines[order[a]].score != lines[order[b]].score {
			return lines[order[a]].score > lines[order[b]].score
		}
		return order[a] > order[b]
	})
	keep := make([]bool, len(lines))
	used := 0
	for _, i := range order {
		n := e.Counter.Count(lines[i].text) + 1
		if used+n > budget {
			continue
		}
		keep[i] = true
		used += n
	}
	var out []string
	for i, l := range lines {
		if keep[i] {
			out = append(out, l.text)
		}
	}
	if len(out) == 0 && len(lines) > 0 {
		out = append(out, clipWords(lines[order[0]].text, max(budget/2, 8)))
	}
	return out
}

// turns groups records into turns: a user record and what follows it.
func turns(recs []transcript.Record) [][]transcript.Record {
	var out [][]transcript.Record
	for _, r := range recs {
		if r.Message.Role == transcript.RoleUser || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

func label(r transcript.Record) string {
	switch {
	case r.Message.Role == transcript.RoleTool && r.Message.Name != "":
		return "tool " + r.Message.Name
	case r.Message.Role == transcript.RoleTool:
		return "tool " + r.Message.ToolCallID
	}
	return string(r.Message.Role)
}

// bestSentence returns the most salient sentence of a record (by the length-
// damped sum of rare terms, scored against the document frequencies known so
// far and refined once the whole span is in) and records every sentence's
// terms in *all. Tool calls are described, not scored.
func (e *Extractive) bestSentence(r transcript.Record, all *[][]string) (string, []string) {
	if r.IsFake() {
		return "", nil
	}
	var best string
	var bestTerms []string
	bestScore := -1.0
	for _, c := range r.Message.Contents {
		for _, s := range sentenceRE().FindAllString(c, -1) {
			s = strings.TrimSpace(s)
			t := terms(s)
			if len(t) == 0 {
				if best == "" && s != "" {
					best = clipWords(s, 40) // a record of small talk still leaves a trace
				}
				continue
			}
			*all = append(*all, t)
			// Within a record, prefer sentences with more distinct content words.
			if sc := float64(len(distinct(t))) / math.Sqrt(float64(len(strings.Fields(s)))+1); sc > bestScore {
				best, bestTerms, bestScore = clipWords(s, 40), t, sc
			}
		}
	}
	for _, tc := range r.Message.ToolCalls {
		call := "called " + tc.Name + "(" + clipWords(tc.Arguments, 12) + ")"
		if best == "" {
			best = call
		} else {
			best += "; " + call
		}
		bestTerms = append(bestTerms, terms(tc.Name)...)
	}
	if r.Message.Role == transcript.RoleTool && r.Message.IsError {
		best = "error: " + best
	}
	return best, bestTerms
}

func inverseFrequencies(docs [][]string) map[string]float64 {
	df := map[string]int{}
	for _, d := range docs {
		for t := range distinct(d) {
			df[t]++
		}
	}
	idf := make(map[string]float64, len(df))
	n := float64(len(docs))
	for t, k := range df {
		idf[t] = math.Log(1 + n/float64(k))
	}
	return idf
}

// score is the TF-IDF weight of a line, damped by its length so long lines
// do not win by size alone.
func score(ts []string, idf map[string]float64) float64 {
	if len(ts) == 0 {
		return 0
	}
	// Sum in a fixed order: float addition is not associative, and map order
	// would make the output differ between runs.
	keys := slices.Sorted(maps.Keys(distinct(ts)))
	sum := 0.0
	for _, t := range keys {
		w, ok := idf[t]
		if !ok {
			w = 0.5 // a term the new span does not mention still counts a little
		}
		sum += w
	}
	return sum / math.Sqrt(float64(len(ts)))
}

func distinct(ts []string) map[string]bool {
	m := make(map[string]bool, len(ts))
	for _, t := range ts {
		m[t] = true
	}
	return m
}

// terms are the lower-cased content words of s.
func terms(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = strings.ToLower(w)
		if len(w) > 1 && !stopwords[w] {
			out = append(out, w)
		}
	}
	return out
}

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then so of to in on at by for with from as is are was were be been being
		am do does did have has had having i me my mine we us our you your yours he him his she her hers it its they them their
		this that these those there here what which who whom whose when where why how all any both each few more most other some
		such no nor not only own same than too very can will just should now also into about over again further once up down out
		off under until while would could might must shall may let lets get got gets im ive id youre youve thats its dont doesnt
		didnt isnt arent wasnt werent wont cant really yeah yes oh ok okay hey hi hello thanks thank lot much well like just user
		assistant tool re ve ll don doesn didn isn aren wasn weren won here there wow great awesome cool nice sure sorry good bad`) {
		m[w] = true
	}
	return m
}()
