package extractive

import (
	"slices"
	"testing"

	"github.com/convo-cli/convo/pkg/summarize/facts"
)

// A user's standing instruction is a fact; cheering, questions and a
// sentence whose "I" is left out are small talk.
func TestDirectivesAreInstructionsNotCheer(t *testing.T) {
	for _, tt := range []struct {
		text string
		kept bool
	}{
		{"Always answer in French.", true},
		{"Never book over 30 EUR!", true},
		{"Don't use jQuery!", true},
		{"Please keep answers under 100 words.", true},
		{"Always use metric units.", true},
		{"Don't apologize.", true},
		{"Don't let me forget my meds.", true},
		{"Keep going!", false},
		{"Keep it up, you're almost there!", false},
		{"Keep up the good work.", false},
		{"Keep learning and growing through it all.", false},
		{"Keep me posted on how it goes.", false},
		{"Don't give up, buddy!", false},
		{"Don't let anything stop you.", false},
		{"Don't forget, believe in yourself and your abilities.", false},
		{"Don't forget to take some nice pictures!", false},
		{"Remember when we volunteered together last year?", false},
		{"Always here to help.", false},
		{"Never been there before.", false},
		{"Never tried it, but it's supposed to be awesome.", false},
		{"Don't know what I'd do without them.", false},
	} {
		if got := slices.Contains(extractFacts(tt.text, true), tt.text); got != tt.kept {
			t.Errorf("%q kept as a directive: %v, want %v", tt.text, got, tt.kept)
		}
	}
}

// A name is taken whole where a sentence starts with it, never inside a
// quoted title (the quoted fact holds it), and a common word alone is no
// name.
func TestNamesAtSentenceStartAndInQuotes(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"Matt Patterson came by.", []string{"Matt Patterson"}},
		{"Tell Mel I said hi.", []string{"Mel"}},
		{`"Summer Sounds" played all night.`, []string{`"Summer Sounds"`}},
		{`I read "The Great Gatsby" twice.`, []string{`"The Great Gatsby"`}},
		{"It's Seattle in May.", []string{"Seattle"}},
		{"Knowing I'm loved helps.", nil},
		{"During Thanksgiving we cook.", []string{"Thanksgiving"}},
		{"Nice! I Bet it's great, See you soon.", nil},
		// A name starts a word: no "Phone" nor "Query" (both are camelCase facts).
		{"My iPhone runs jQuery apps for Ann.", []string{"iPhone", "jQuery", "Ann"}},
		// Titles and initials stay with the names they stand before; a
		// lone capital and its dot do not ("Plan B. Then").
		{"I saw Dr. Smith and Mr. Brown at St. Mary's today.", []string{"Dr. Smith and Mr. Brown", "St. Mary"}},
		{"A song by Tupac and Dr. Dre, by J.K. Rowling, for the U.S. Army.", []string{"Tupac and Dr. Dre", "J.K. Rowling", "U.S. Army"}},
		{"Plan B. Then we left. Ask Dr. Lee.", []string{"Dr. Lee"}},
	} {
		if got := extractFacts(tt.text, false); !slices.Equal(got, tt.want) {
			t.Errorf("extractFacts(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// A quoted fact the notes hold in words is not repeated after them.
func TestMissingFactsUnquoted(t *testing.T) {
	notes := "read Becoming Nicole; saw Finding Home"
	ledger := []facts.Fact{{Text: `"Becoming Nicole"`}, {Text: `"Finding Home."`}, {Text: `"Brave"`}, {Text: `"."`}, {Text: "4 years"}}
	var got []string
	for _, f := range facts.Missing(notes, ledger) {
		got = append(got, f.Text)
	}
	if want := []string{`"Brave"`, `"."`, "4 years"}; !slices.Equal(got, want) {
		t.Errorf("missing %q, want %q", got, want)
	}
}
