package extractive

import (
	"math"
	"testing"

	"github.com/convo-cli/convo/pkg/tokens"
)

func TestCountsTime(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"at least once a week", true},
		{"go twice", true},
		{"for 3 years", true},
		{"a few days ago", true},
		{"every morning and evening", true},
		{"joined a gym last week", true},
		{"hiking on Sunday", false}, // a day's name alone places nothing
		{"last Friday", true},
		{"three times a week", true},
		{"Weekly standup", true},
		{"two younger kids", false},
		{"days of thunder", false},
		{"the best year", false},
		{"ORD-55821", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := countsTime(tt.text); got != tt.want {
			t.Errorf("countsTime(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// Each word of a phrase that counts time is worth quantityWorth times
// what it is worth in a phrase that does not.
func TestQuantityRaisesWorth(t *testing.T) {
	timed, plain := scoreFlat(t, "swim twice a week"), scoreFlat(t, "swim with a friend")
	if timed.words[0] != "swim" || plain.words[0] != "swim" {
		t.Fatalf("first words %q, %q, want swim", timed.words, plain.words)
	}
	if got, want := timed.worth[0], plain.worth[0]*quantityWorth; math.Abs(got-want) > 1e-9 {
		t.Errorf("swim is worth %.3f when timed, want %.3f", got, want)
	}
}

// A number in words weighs what a number in digits or a name does: twice
// a plain word of the same rarity; "one", as often a pronoun, does not.
func TestNumberWordsWeighAsNumbers(t *testing.T) {
	for _, tt := range []struct {
		text   string
		factor float64
	}{
		{"adopted three dogs", 2},
		{"adopted twenty dogs", 2},
		{"adopted 30 dogs", 2},
		{"adopted Rex dogs", 2},
		{"adopted one dogs", 1},
		{"adopted big dogs", 1},
	} {
		n := scoreFlat(t, tt.text)
		if len(n.worth) != 3 {
			t.Fatalf("%q: words %q", tt.text, n.words)
		}
		if got := n.worth[1] / n.worth[2]; math.Abs(got-tt.factor) > 1e-9 {
			t.Errorf("%q: %s weighs %.2f times %s, want %.0f", tt.text, n.words[1], got, n.words[2], tt.factor)
		}
	}
}

// scoreFlat scores a phrase among 10 candidates where every word is as
// rare as any other and held by one candidate: what is left of its score
// are the multipliers.
func scoreFlat(t *testing.T, text string) note {
	t.Helper()
	c, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	n := note{phrase: phrase{text: text}}
	(&Engine{Counter: c}).score(&n, 10, func(string) int { return 1 }, func(string) float64 { return 1 })
	return n
}
