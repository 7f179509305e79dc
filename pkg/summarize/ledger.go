package summarize

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/summarize/internal/work"
	"github.com/convo-cli/convo/pkg/transcript"
)

// The fact ledger: the identifiers of the covered records with their
// labels, and the user's standing instructions, found by package facts,
// carried verbatim from summary to summary in aux.ledger and appended to
// the summary text, so repeated summarizing cannot lose them whatever the
// summarizer writes. The ledger is protected (see the extractive engine's
// doc): it is bounded by entries, not cut to make room for notes.

// DefaultLedgerSize bounds the ledger's entries.
const DefaultLedgerSize = 48

// recordFacts are what one record gives the ledger and the sections: its
// facts and, of a tool result, its error lines.
type recordFacts struct {
	found []facts.Found
	errs  []string
}

func factsOfRecord(r *transcript.Record) recordFacts {
	out := recordFacts{found: facts.Of(r)}
	if r.Message.Role == transcript.RoleTool && !r.IsFake() {
		out.errs = facts.ErrorLines(strings.Join(r.Message.Contents, "\n"), r.Message.IsError)
	}
	return out
}

// previousSections are the sections a previous summary carries in
// aux.sections (nil for none).
func previousSections(prev *transcript.Record) *facts.Sections {
	if prev == nil {
		return nil
	}
	raw, ok := prev.Metadata.Aux["sections"]
	if !ok {
		return nil
	}
	var s facts.Sections
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return &s
}

// carryLedger is CarryLedger over a stream of the covered records. Every
// fact seen is counted, so it holds each distinct fact once, compactly: a
// hash of its folded text, its count, who said it first (the speakers
// interned) and, for the first maxLedgerTexts facts, its text and label.
// Those of a later one are read again from the stream if needed.
//
// held, when not nil, is the records covered streams, held in memory:
// their facts are then found on every processor at once.
//
// sections, when not nil, is given every record covered, in order, with
// its error lines, in the same read.
func carryLedger(prev *transcript.Record, held []transcript.Record, covered transcript.Stream, size int, sections *facts.SectionBuilder) ([]facts.Fact, int, error) {
	if size <= 0 {
		size = DefaultLedgerSize
	}
	prevFacts, dropped := previousLedger(prev)
	var (
		found    []facts.Found // by entry, for the first maxLedgerTexts
		entries  []ledgerEntry
		speakers []string
		speakerN = map[string]int32{}
		index    = make(map[uint64]int32, len(prevFacts))
		mention  int32
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
		found = append(found, facts.Found{Text: f.Text, Label: f.Label, Kind: f.Kind})
		mention++
		entries = append(entries, ledgerEntry{seen: int32(f.Seen), by: speakerOf(f.By), last: mention, instruction: f.Kind == "instruction"})
	}
	factsOf := func(sb *facts.SectionBuilder, fn func(f facts.Found, by string)) error {
		return coveredFacts(held, covered, sb, fn)
	}
	err := factsOf(sections, func(f facts.Found, by string) {
		mention++
		k := work.Hash(strings.ToLower(f.Text))
		if i, ok := index[k]; ok {
			e := &entries[i]
			e.seen++
			e.last = mention
			// A person's mention speaks for the fact over a tool's.
			if isTool(speakers[e.by]) && !isTool(by) {
				e.by = speakerOf(by)
			}
			if int(i) < len(found) && betterLabel(found[i], f, by) {
				found[i].Label, found[i].Named, found[i].By = strings.Clone(f.Label), f.Named, strings.Clone(by)
			}
			return
		}
		index[k] = int32(len(entries))
		entries = append(entries, ledgerEntry{seen: 1, by: speakerOf(by), last: mention, instruction: f.Kind == "instruction"})
		if len(found) < maxLedgerTexts {
			// A fact is a piece of its record's text: a copy keeps the
			// record from being held with it.
			found = append(found, facts.Found{Text: strings.Clone(f.Text), Label: strings.Clone(f.Label), Named: f.Named, Kind: f.Kind, By: strings.Clone(by)})
		}
	})
	if err != nil {
		return nil, 0, err
	}
	rank, cut := rankLedger(entries, speakers, size)
	dropped += cut
	fetched := map[int32]facts.Found{}
	// The facts kept but not held are read again, in one read.
	var want map[int32]bool
	for _, i := range rank {
		if int(i) >= len(found) {
			if want == nil {
				want = map[int32]bool{}
			}
			want[i] = true
		}
	}
	if len(want) > 0 {
		err := factsOf(nil, func(f facts.Found, by string) {
			j := index[work.Hash(strings.ToLower(f.Text))]
			if !want[j] {
				return
			}
			// Its first mention is its text and kind; its label is chosen
			// among the mentions as when it is held.
			if got, ok := fetched[j]; !ok {
				fetched[j] = facts.Found{Text: strings.Clone(f.Text), Label: strings.Clone(f.Label), Named: f.Named, Kind: f.Kind, By: strings.Clone(by)}
			} else if betterLabel(got, f, by) {
				got.Label, got.Named, got.By = strings.Clone(f.Label), f.Named, strings.Clone(by)
				fetched[j] = got
			}
		})
		if err != nil {
			return nil, 0, err
		}
	}
	return ledgerFacts(entries, rank, found, fetched, speakers), dropped, nil
}

// ledgerEntry is what the ledger counts of one distinct fact while it
// reads the span: how often it was seen, who said it first (an index of
// the speakers), its latest mention, and whether it is an instruction.
type ledgerEntry struct {
	seen, by    int32
	last        int32 // the order of its latest mention: newer is larger
	instruction bool
}

// rankLedger is the ledger's ranking, apart from the reading: the places
// of the entries kept, best first, at most size of them, and how many
// fell past the bound. The user's instructions come first (past the
// bound the newest win: a later one may amend an earlier), then what the
// user said, then what the assistant said, then what tools printed (a
// tool's output is bulk, and an identifier in it that matters is said
// again), then the most often said, then the newest.
func rankLedger(entries []ledgerEntry, speakers []string, size int) ([]int32, int) {
	rank := make([]int32, len(entries))
	for i := range rank {
		rank[i] = int32(i)
	}
	tier := func(e ledgerEntry) int {
		switch by := speakers[e.by]; {
		case e.instruction:
			return 0
		case by == string(transcript.RoleUser):
			return 1
		case isTool(by):
			return 3
		}
		return 2
	}
	slices.SortStableFunc(rank, func(a, b int32) int {
		ea, eb := entries[a], entries[b]
		if ta, tb := tier(ea), tier(eb); ta != tb {
			return ta - tb
		}
		if ea.instruction {
			return int(eb.last - ea.last)
		}
		if ea.seen != eb.seen {
			return int(eb.seen - ea.seen)
		}
		return int(eb.last - ea.last)
	})
	if len(rank) > size {
		return rank[:size], len(rank) - size
	}
	return rank, 0
}

// maxLedgerTexts bounds the facts whose text the ledger holds while it
// counts.
var maxLedgerTexts = 1 << 16

// isTool reports whether a speaker (facts.By) is a tool or a tool call.
func isTool(by string) bool { return strings.HasPrefix(by, "tool ") }

// betterLabel reports whether the label of g, said by by, names a fact
// better than the one f has: any label beats none, a person's beats a
// tool's, a naming phrase beats words that stand beside it.
func betterLabel(f, g facts.Found, by string) bool {
	if g.Label == "" || isTool(by) && !isTool(f.By) && f.Label != "" {
		return false
	}
	return f.Label == "" || isTool(f.By) && !isTool(by) || g.Named && !f.Named
}

// previousLedger is the ledger the summary before carries, and how many
// entries it had dropped.
func previousLedger(prev *transcript.Record) ([]facts.Fact, int) {
	var prevFacts []facts.Fact
	dropped := 0
	if prev != nil {
		if raw, ok := prev.Metadata.Aux["ledger"]; ok {
			_ = json.Unmarshal(raw, &prevFacts)
		}
		if raw, ok := prev.Metadata.Aux["ledgerDropped"]; ok {
			_ = json.Unmarshal(raw, &dropped)
		}
	}
	return prevFacts, dropped
}

// coveredFacts calls fn with each fact of the covered records (held, or
// else read from covered), in order, and who said it; sb, when not nil, is
// given each record.
func coveredFacts(held []transcript.Record, covered transcript.Stream, sb *facts.SectionBuilder, fn func(f facts.Found, by string)) error {
	use := func(r *transcript.Record, rf recordFacts) {
		if sb != nil {
			sb.Add(r, rf.errs)
		}
		if len(rf.found) > 0 {
			by := facts.By(*r)
			for _, f := range rf.found {
				fn(f, cmp.Or(f.By, by))
			}
		}
	}
	if held != nil {
		all := make([]recordFacts, len(held))
		work.ForEach(len(held), func(i int) { all[i] = factsOfRecord(&held[i]) })
		for i := range held {
			use(&held[i], all[i])
		}
		return nil
	}
	return work.InBatches(covered, factsOfRecord, func(r *transcript.Record, rf recordFacts) error {
		use(r, rf)
		return nil
	})
}

// ledgerFacts are the ranked entries as facts: the instructions first, then
// the other entries, each in the order they were first said.
func ledgerFacts(entries []ledgerEntry, rank []int32, found []facts.Found, fetched map[int32]facts.Found, speakers []string) []facts.Fact {
	keep := map[int32]bool{}
	for _, i := range rank {
		keep[i] = true
	}
	var out []facts.Fact
	for pass := range 2 {
		for i, e := range entries {
			if !keep[int32(i)] || e.instruction != (pass == 0) {
				continue
			}
			f, ok := fetched[int32(i)]
			if int(i) < len(found) {
				f, ok = found[i], true
			}
			if ok {
				out = append(out, facts.Fact{Text: f.Text, Label: f.Label, Kind: f.Kind, Seen: int(e.seen), By: speakers[e.by]})
			}
		}
	}
	return out
}
