package extractive

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/tokens"
)

// randomNotes is 5 to 64 candidates over a few words, so that gains fall
// and notes go back into the queue often; with pairs, some are replies
// in turns with a user's note.
func randomNotes(r *rand.Rand, c *tokens.Counter, pairs bool) []note {
	pool := strings.Fields("Lisbon trip bakery Clara report Friday")
	var cands []note
	turn := 0
	for i := range 5 + r.IntN(60) {
		n := note{turn: i}
		if pairs {
			if r.IntN(3) == 0 {
				turn++
			}
			n = note{turn: turn, reply: r.IntN(2) == 0}
		}
		var text []string
		sum := 0.0
		for range 1 + r.IntN(4) {
			w := pool[r.IntN(len(pool))]
			x := 1 + 10*r.Float64()
			text = append(text, w)
			sum += x
			if j := slices.Index(n.words, strings.ToLower(w)); j >= 0 {
				n.worth[j] += x
			} else {
				n.words, n.worth = append(n.words, strings.ToLower(w)), append(n.worth, x)
			}
		}
		n.text = strings.Join(text, " ") + fmt.Sprintf(" n%d", i)
		n.cost = c.Count(n.text) + 1
		n.length = float64(n.cost) + clauseLengthBias
		n.score = sum / n.length
		cands = append(cands, n)
	}
	return cands
}

// TestFitInPassesMatchesWhole: the greedy weighing a few candidates at a
// time, in passes (as it does past Limits.Batch), keeps the notes it keeps
// weighing all at once, when what a note adds only falls as the summary
// grows (no replies, so no pairs).
func TestFitInPassesMatchesWhole(t *testing.T) {
	c := counter(t)
	ex := &Engine{Counter: c}
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 16))
		cands := randomNotes(r, c, false)
		budget := c.Count(unnamedNotesHeading) + 1 + 5 + r.IntN(120)
		want := renderNotes(ex.fit(cands, budget), false)
		if _, notes := fitInPasses(t, r, ex, cands, budget); renderNotes(notes, false) != want {
			t.Fatalf("seed %d, budget %d: in passes\n%s\nall at once\n%s", seed, budget, renderNotes(notes, false), want)
		}
	}
}

// TestFitInPassesIsBounded: with replies and their pairs (whose weight
// changes once the user's note is kept), the greedy in passes stays
// within the budget and makes at most a pass per note it takes, besides
// the first and a last that finds nothing.
func TestFitInPassesIsBounded(t *testing.T) {
	c := counter(t)
	ex := &Engine{Counter: c}
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 17))
		cands := randomNotes(r, c, true)
		budget := c.Count(unnamedNotesHeading) + 1 + 5 + r.IntN(120)
		s, notes := fitInPasses(t, r, ex, cands, budget)
		if len(notes) == 0 {
			t.Fatalf("seed %d: no notes", seed)
		}
		if text := renderNotes(notes, false); len(notes) > 1 && c.Count(text) > budget {
			t.Fatalf("seed %d: %d tokens over a budget of %d:\n%s", seed, c.Count(text), budget, text)
		}
		if s.passes > s.taken+2 {
			t.Fatalf("seed %d: %d passes for %d notes taken", seed, s.passes, s.taken)
		}
	}
}

// fitInPasses fits cands within budget weighing 1 to 4 of them at once.
func fitInPasses(t *testing.T, r *rand.Rand, ex *Engine, cands []note, budget int) (*noteSet, []note) {
	t.Helper()
	old := Limits
	Limits.Held, Limits.Batch = 0, 1+r.IntN(4)
	t.Cleanup(func() { Limits = old })
	s := &noteSet{e: ex, scored: cands}
	notes, err := s.fit(budget)
	if err != nil {
		t.Fatal(err)
	}
	return s, notes
}

func counter(t testing.TB) *tokens.Counter {
	t.Helper()
	c, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFitLedgerWordsHeld: a note whose words the ledger holds already
// adds less than one that says something new, so the room goes to the
// new one; without the ledger's words the richer note wins.
func TestFitLedgerWordsHeld(t *testing.T) {
	c := counter(t)
	ex := &Engine{Counter: c}
	mk := func(turn int, text string, x float64) note {
		n := note{turn: turn, words: strings.Fields(strings.ToLower(text)), worth: []float64{x, x}}
		n.text = text
		n.cost = c.Count(text) + 1
		n.length = float64(n.cost) + clauseLengthBias
		n.score = 2 * x / n.length
		return n
	}
	cands := []note{mk(0, "courier reference", 8), mk(1, "parcel damaged", 5)}
	budget := c.Count(unnamedNotesHeading) + 1 + max(cands[0].cost, cands[1].cost)
	for _, tt := range []struct {
		ledger []string
		want   string
	}{
		{nil, "courier reference"},
		{ledgerWords([]facts.Fact{{Text: "AZ-7781-XQ", Label: "courier reference"}}), "parcel damaged"},
	} {
		s := &noteSet{e: ex, scored: cands, heldAll: true, ledgerWords: tt.ledger}
		got, err := s.fit(budget)
		if err != nil || len(got) != 1 || got[0].text != tt.want {
			t.Errorf("ledger %q: fit = %+v, %v; want %q alone", tt.ledger, got, err, tt.want)
		}
	}
}

// fit is noteSet.fit over candidates scored already.
func (e *Engine) fit(cands []note, budget int) []note {
	named := slices.ContainsFunc(cands, func(n note) bool { return n.by != "" })
	s := &noteSet{e: e, scored: cands, heldAll: true, named: named}
	out, _ := s.fit(budget)
	return out
}
