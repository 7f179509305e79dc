package summarize

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/summarize/internal/work"
	"github.com/convo-cli/convo/pkg/transcript"
)

// The fact ledger: identifiers, numbers, dates, URLs and user directives
// found by code in the covered records, carried verbatim from summary to
// summary in aux.ledger and appended to the summary text, so repeated
// summarizing cannot lose them whatever the summarizer writes.

// DefaultLedgerSize bounds the ledger; past it the entries not seen for
// longest are dropped first.
const DefaultLedgerSize = 48

// CarryLedger returns the ledger of a new summary: the previous summary's
// facts, with the facts of the covered records counted in, within budget
// tokens (counted by count; 0: no bound) and size entries. The user's
// directives come first; past that the entries seen least often go first
// and, among those, the newest: the oldest are dropped last, so what was
// established early (names, ids) survives repeated summarizing.
func CarryLedger(prev *transcript.Record, covered []transcript.Record, size, budget int, count func(string) int) []facts.Fact {
	ledger, _ := carryLedger(prev, covered, sliceStream(covered), size, budget, count)
	return ledger
}

// carryLedger is CarryLedger over a stream of the covered records. Every
// fact seen is counted, so it holds each distinct fact once, compactly: a
// hash of its folded text, its count, who said it first (the speakers
// interned) and, for the first maxLedgerTexts facts, its text. The text of
// a later one is read again from the stream if it comes to be needed.
//
// held, when not nil, is the records covered streams, held in memory:
// their facts are then found on every processor at once.
func carryLedger(prev *transcript.Record, held []transcript.Record, covered RecordStream, size, budget int, count func(string) int) ([]facts.Fact, error) {
	if size <= 0 {
		size = DefaultLedgerSize
	}
	var prevFacts []facts.Fact
	if prev != nil {
		if raw, ok := prev.Metadata.Aux["ledger"]; ok {
			_ = json.Unmarshal(raw, &prevFacts)
		}
	}
	type entry struct {
		seen, by  int32
		directive bool
	}
	var (
		texts    []string // by entry, for the first maxLedgerTexts
		entries  []entry
		speakers []string
		speakerN = map[string]int32{}
		index    = make(map[uint64]int32, len(prevFacts))
	)
	speakerOf := func(by string) int32 {
		i, ok := speakerN[by]
		if !ok {
			i = int32(len(speakers))
			by = strings.Clone(by)
			speakers = append(speakers, by)
			speakerN[by] = i
		}
		return i
	}
	for _, f := range prevFacts {
		// Every previous fact stays an entry, even one that differs from
		// another only in case; the later one is counted.
		index[work.Hash(strings.ToLower(f.Text))] = int32(len(entries))
		texts = append(texts, f.Text)
		entries = append(entries, entry{seen: int32(f.Seen), by: speakerOf(f.By), directive: extractive.IsDirective(f.Text)})
	}
	// facts calls fn with each fact of the covered records, in order, and
	// who said it.
	factsOf := func(fn func(fact, by string)) error {
		if held != nil {
			found := make([][]string, len(held))
			work.ForEach(len(held), func(i int) { found[i] = extractive.RecordFacts(&held[i]) })
			for i := range held {
				if len(found[i]) > 0 {
					by := facts.By(held[i])
					for _, f := range found[i] {
						fn(f, by)
					}
				}
			}
			return nil
		}
		return work.InBatches(covered, extractive.RecordFacts, func(r *transcript.Record, fs []string) error {
			if len(fs) > 0 {
				by := facts.By(*r)
				for _, f := range fs {
					fn(f, by)
				}
			}
			return nil
		})
	}
	err := factsOf(func(text, by string) {
		k := work.Hash(strings.ToLower(text))
		if i, ok := index[k]; ok {
			entries[i].seen++
			return
		}
		index[k] = int32(len(entries))
		entries = append(entries, entry{seen: 1, by: speakerOf(by), directive: extractive.IsDirective(text)})
		if len(texts) < maxLedgerTexts {
			// A fact is a piece of its record's text: a copy keeps the
			// record from being held with it.
			texts = append(texts, strings.Clone(text))
		}
	})
	if err != nil {
		return nil, err
	}
	rank := make([]int32, len(entries))
	for i := range rank {
		rank[i] = int32(i)
	}
	// The user's standing instructions first: said once, they still rule
	// every turn after. Then seen more first; the sort is stable, so
	// older first among equals.
	slices.SortStableFunc(rank, func(a, b int32) int {
		if da, db := entries[a].directive, entries[b].directive; da != db {
			if da {
				return -1
			}
			return 1
		}
		return int(entries[b].seen - entries[a].seen)
	})
	fetched := map[int32]string{}
	// text is entry rank[at]'s text; one not held is read again with the
	// next ones of the rank not held, up to ledgerFetch of them.
	text := func(at int) (string, error) {
		i := rank[at]
		if int(i) < len(texts) {
			return texts[i], nil
		}
		if t, ok := fetched[i]; ok {
			return t, nil
		}
		want := map[int32]bool{i: true}
		for _, j := range rank[at+1:] {
			if len(want) >= ledgerFetch {
				break
			}
			if int(j) >= len(texts) {
				want[j] = true
			}
		}
		err := factsOf(func(t, _ string) {
			if j := index[work.Hash(strings.ToLower(t))]; want[j] {
				fetched[j] = strings.Clone(t)
				delete(want, j) // its first mention is its text
			}
		})
		return fetched[i], err
	}
	keep := map[int32]string{}
	used := 0
	for at, i := range rank {
		if len(keep) == size {
			break
		}
		if count != nil && budget > 0 && budget-used < 2 {
			break // a fact costs a token and its separator at least
		}
		t, err := text(at)
		if err != nil {
			return nil, err
		}
		if count != nil && budget > 0 {
			cost := count(t) + 1
			if used+cost > budget {
				continue
			}
			used += cost
		}
		keep[i] = t
	}
	var out []facts.Fact
	for i, e := range entries {
		if t, ok := keep[int32(i)]; ok {
			out = append(out, facts.Fact{Text: t, Seen: int(e.seen), By: speakers[e.by]})
		}
	}
	return out, nil
}

// maxLedgerTexts bounds the facts whose text the ledger holds while it
// counts; ledgerFetch is how many are read again at once.
var (
	maxLedgerTexts = 1 << 16
	ledgerFetch    = 1 << 10
)
