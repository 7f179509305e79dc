package extractive

import (
	"math"
	"testing"

	"github.com/convo-cli/convo/pkg/tokens"
)

// A word weighs by its rarity and its frequency among the candidates
// alone: with both flat, each word of a clause weighs as the next.
func TestWordsWeighAlike(t *testing.T) {
	for _, tt := range []struct {
		text   string
		factor float64
	}{
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

// scoreFlat scores a clause among 10 candidates where every word is as
// rare as any other and held by one candidate: what is left of its score
// are the multipliers.
func scoreFlat(t *testing.T, text string) note {
	t.Helper()
	c, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	n := note{clause: clause{text: text}}
	(&Engine{Counter: c}).score(&n, 10, func(string) int { return 1 }, func(string) float64 { return 1 })
	return n
}
