package extractive

import (
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/summarize/internal/work"
	"github.com/convo-cli/convo/pkg/transcript"
)

// noteSet is the extractive summarizer's candidates: the clauses of the
// previous summary and of the records folded in, each kept at its first
// mention. Up to Limits.Held candidates are held whole; more are
// streamed again for each pass the greedy (fit) needs, and between
// passes only the figures scoring needs stay in memory (the names, how
// many candidates hold each word, by hash, which clause is a first
// mention). The greedy weighs at most Limits.Batch candidates at once (see
// fit).
type noteSet struct {
	e    *Engine
	each transcript.Stream
	// tools: the notes are an agent session's decisions (Input.Tools).
	tools bool
	// recs are the records each streams when they are held, and clauses
	// their clauses, cut once.
	recs    []transcript.Record
	clauses [][]clause

	prev  []note           // the previous summary's candidates, in order
	turns int              // the previous summary's lines
	named bool             // a candidate names its speaker (see label)
	n     int              // the candidates
	df    map[uint64]int32 // candidates holding a folded word, by its hash
	// first has a bit per clause of the records, in order: set at a
	// clause's first mention.
	first []uint64
	// held is every candidate of the records, when there are at most
	// Limits.Held of them (nil otherwise: they are streamed again).
	held    []note
	heldAll bool
	// all is every candidate, scored, when they are held; opening is the
	// greedy's first pass over them and rest the best it left out.
	all     []cand
	opening []gainItem
	rest    *gainItem
	// passes and taken are the last fit's passes and the notes it took.
	passes, taken int
	// scored, when set, are the candidates, scored already (fit's tests).
	scored []note
	rarity map[string]float64
	// ledgerWords are the folded content words of the ledger's labels
	// and facts: the summary holds them already, so fit counts them as
	// held before it takes a note.
	ledgerWords []string
}

// Limits bound what the engine holds: past Held candidates they are read
// again from the stream for each pass of the greedy, which weighs at most
// Batch candidates at once. Tests shrink them so that every pass runs on
// a small input.
var Limits = struct{ Held, Batch int }{Held: 1 << 17, Batch: 1 << 15}

// cand is a candidate with its place among the candidates and its pair:
// the best note of the user in its turn (nil when the user has none).
type cand struct {
	note
	idx  int
	pair *cand
}

// ahead reports whether a goes before b in the walk: higher score first,
// and among equals the newer note, the one the next turns build on.
func ahead(a, b *cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.idx > b.idx
}

// scan reads the previous summary's notes and the records once: the
// names, the first mentions and the document frequencies.
func (s *noteSet) scan(previous string) error {
	s.df = map[uint64]int32{}
	s.named = false
	seen := map[uint64]struct{}{}
	// The candidates are the first mentions, compared without case; the
	// text's hash stands for it, so a long span holds no clause text.
	firstMention := func(text string) bool {
		h := work.Hash(strings.ToLower(text))
		if _, ok := seen[h]; ok {
			return false
		}
		seen[h] = struct{}{}
		s.n++
		var words []string
		for w := range noteWords(text) {
			if isContent(w) {
				words = append(words, w)
			}
		}
		for _, w := range distinctFolded(words) {
			s.df[work.Hash(w)]++
		}
		return true
	}
	for _, line := range previousNotes(previous) {
		for side, part := range line {
			for _, p := range part {
				n := note{clause: clause{text: p.text}, turn: s.turns, reply: side == 1, by: p.by}
				s.named = s.named || n.by != ""
				if firstMention(n.text) {
					s.prev = append(s.prev, n)
				}
			}
		}
		s.turns++
	}
	occ := 0
	held := true
	err := s.fresh(func(n note) error {
		s.named = s.named || n.by != ""
		if occ/64 == len(s.first) {
			s.first = append(s.first, 0)
		}
		if firstMention(n.text) {
			s.first[occ/64] |= 1 << (occ % 64)
			if held {
				s.held = append(s.held, n)
				if len(s.held) > Limits.Held {
					s.held, held = nil, false
				}
			}
		}
		occ++
		return nil
	})
	s.heldAll = held
	return err
}

// fresh calls fn with each clause of the records, in order, as a note of
// its turn (a user record and what follows it).
func (s *noteSet) fresh(fn func(note) error) error {
	turn := s.turns - 1
	each, clauses := s.each, func(r transcript.Record) []clause { return recordClauses(r, s.tools) }
	if s.recs != nil {
		// Held records are cut into clauses on every processor at once.
		if s.clauses == nil {
			s.clauses = make([][]clause, len(s.recs))
			work.ForEach(len(s.recs), func(i int) {
				if !s.recs[i].IsFake() {
					s.clauses[i] = recordClauses(s.recs[i], s.tools)
				}
			})
		}
		each = transcript.Slice(s.recs...)
		clauses = nil
	}
	pos := -1
	use := func(r *transcript.Record, ps []clause) error {
		pos++
		if r.Message.Role == transcript.RoleUser || turn < s.turns {
			turn++
		}
		if r.IsFake() {
			return nil
		}
		if clauses == nil {
			ps = s.clauses[pos]
		}
		for _, p := range ps {
			if err := fn(note{clause: p, turn: turn, reply: r.Message.Role != transcript.RoleUser, by: label(*r)}); err != nil {
				return err
			}
		}
		return nil
	}
	if clauses == nil {
		return each(func(r *transcript.Record) error { return use(r, nil) })
	}
	return work.InBatches(each, func(r *transcript.Record) []clause {
		if r.IsFake() {
			return nil
		}
		return clauses(*r)
	}, use)
}

// candidates calls fn with each candidate, scored and paired, in order;
// fn may keep it.
func (s *noteSet) candidates(fn func(c cand)) error {
	var turn []cand
	idx := 0
	flush := func() {
		var pair *cand
		for i := range turn {
			if !turn[i].reply && (pair == nil || ahead(&turn[i], pair)) {
				pair = &turn[i]
			}
		}
		if pair != nil {
			p := *pair
			pair = &p
		}
		for _, c := range turn {
			c.pair = pair
			fn(c)
		}
		turn = turn[:0]
	}
	push := func(n note) {
		if len(turn) > 0 && turn[0].turn != n.turn {
			flush()
		}
		if s.scored == nil {
			s.e.score(&n, float64(s.n), s.docFreq, s.rarityOf)
		}
		turn = append(turn, cand{note: n, idx: idx})
		idx++
	}
	if s.scored != nil {
		for _, n := range s.scored {
			push(n)
		}
		flush()
		return nil
	}
	for _, n := range s.prev {
		push(n)
	}
	if s.heldAll {
		for _, n := range s.held {
			push(n)
		}
	} else {
		occ := 0
		err := s.fresh(func(n note) error {
			if s.first[occ/64]&(1<<(occ%64)) != 0 {
				push(n)
			}
			occ++
			return nil
		})
		if err != nil {
			return err
		}
	}
	flush()
	return nil
}

// top ranks the candidates by rank (what each would add now; false:
// leave it out) and returns the best limit of them, in no order, and the
// best of those left out (nil: none is). The held candidates are scored
// once; streamed ones on every pass.
func (s *noteSet) top(limit int, rank func(*cand) (float64, bool)) ([]gainItem, *gainItem, error) {
	type ranked struct {
		c    cand
		gain float64
	}
	var (
		out  []ranked
		rest *gainItem
	)
	// trim keeps the best limit, noting the best of the others.
	trim := func() {
		if len(out) <= limit {
			return
		}
		slices.SortFunc(out, func(a, b ranked) int {
			if gainBefore(a.gain, a.c.idx, b.gain, b.c.idx) {
				return -1
			}
			return 1
		})
		if r := out[limit]; rest == nil || gainBefore(r.gain, r.c.idx, rest.gain, rest.c.idx) {
			rest = &gainItem{c: &r.c, gain: r.gain}
		}
		clear(out[limit:])
		out = out[:limit]
	}
	add := func(c *cand) {
		if g, ok := rank(c); ok {
			out = append(out, ranked{c: *c, gain: g})
			if len(out) >= 2*limit {
				trim()
			}
		}
	}
	if s.heldAll {
		if s.all == nil {
			if err := s.candidates(func(c cand) { s.all = append(s.all, c) }); err != nil {
				return nil, nil, err
			}
		}
		for i := range s.all {
			add(&s.all[i])
		}
	} else if err := s.candidates(func(c cand) { add(&c) }); err != nil {
		return nil, nil, err
	}
	trim()
	items := make([]gainItem, len(out))
	for i := range out {
		items[i] = gainItem{c: &out[i].c, gain: out[i].gain}
	}
	return items, rest, nil
}

func (s *noteSet) docFreq(folded string) int { return int(s.df[work.Hash(folded)]) }

// rarityOf caches the tokenizer's rarity of folded words, within bounds.
func (s *noteSet) rarityOf(folded string) float64 {
	r, ok := s.rarity[folded]
	if !ok {
		if s.rarity == nil || len(s.rarity) >= 1<<16 {
			s.rarity = map[string]float64{}
		}
		r = s.e.Counter.Rarity(folded)
		s.rarity[folded] = r
	}
	return r
}
