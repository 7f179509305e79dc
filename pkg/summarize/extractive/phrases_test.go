package extractive

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestSplitPhrases(t *testing.T) {
	tests := []struct {
		text string
		want []phrase
	}{
		{"I joined a nearby church yesterday. So far it's been really great!",
			[]phrase{{text: "joined a nearby church yesterday"}, {text: "far"}}},
		// Small talk is cut by function words alone, as any text is: no
		// list of fillers or forms of address (they earned on one eval
		// domain only, docs/summarize.md).
		{"Hey Caroline! Painting looks great.",
			[]phrase{{text: "Caroline"}, {text: "Painting looks"}}},
		// Markdown: emphasis parts no words, inline code is one word, a
		// fenced code block makes no phrase.
		{"**Install** the package, set `timeout=10`.\n```python\nprint(resp.json())\n```\nIt _really_ works.",
			[]phrase{{text: "Install the package"}, {text: "set timeout=10"}, {text: "works"}}},
		// A negation stays with what it negates.
		{"I don't eat meat, not even fish. No worries!",
			[]phrase{{text: "don't eat meat"}, {text: "not even fish"}, {text: "No worries"}}},
		// A name after a comma that is not an address stays.
		{"I moved from Stockholm, Sweden.",
			[]phrase{{text: "moved from Stockholm"}, {text: "Sweden"}}},
		{"I see them at least once a week.",
			[]phrase{{text: "see"}, {text: "at least once a week"}}},
		// URLs, paths, versions and amounts stay whole.
		{"see https://example.com/a_b?x=1, then edit main.go and v2.3.1 for $30",
			[]phrase{{text: "see https://example.com/a_b?x=1"}, {text: "edit main.go and v2.3.1 for $30"}}},
		// A colon inside a word parts nothing.
		{"We played CS:GO.", []phrase{{text: "played CS:GO"}}},
		// Single quotes part their words from the rest.
		{"We watched 'The Goonies' yesterday with friends and 'Friends' so much.",
			[]phrase{{text: "watched"}, {text: "The Goonies"}, {text: "yesterday with friends"}, {text: "Friends"}}},
		// A dot after a lone capital ends a sentence.
		{"We need vitamin D. then rest. So do I. Then we met.",
			[]phrase{{text: "need vitamin D"}, {text: "rest"}, {text: "met"}}},
		// Quotes part as any mark.
		{`I said "wow" by the way.`,
			[]phrase{{text: "said"}, {text: "by the way"}}},
		// Nothing but function words: no phrase.
		{"Wow, that's so cool! Thanks, I am glad you did.", nil},
		{"", nil},
		// Each line starts a sentence.
		{"first line\nSecond line", []phrase{{text: "first line"}, {text: "Second line"}}},
		// A comma parts the items of a list.
		{"I fixed the old fence behind the barn, and the gate.",
			[]phrase{{text: "fixed the old fence behind the barn"}, {text: "and the gate"}}},
		{"I fed the cat, the dog, and the old horse behind the red barn.",
			[]phrase{{text: "fed the cat"}, {text: "the dog"}, {text: "and the old horse behind the red barn"}}},
		{"I went to Paris, Rome.",
			[]phrase{{text: "went to Paris"}, {text: "Rome"}}},
		{"I fixed the old fence behind the barn, the gate and the roof.",
			[]phrase{{text: "fixed the old fence behind the barn"}, {text: "the gate and the roof"}}},
		{"I sold the car, then bought bikes and skates.",
			[]phrase{{text: "sold the car"}, {text: "bought bikes and skates"}}},
		// Plus signs that close a word are part of it; a sum is not a word.
		{"I write C++ and Notepad++ for LGBTQ+ folks, not ab+cd.",
			[]phrase{{text: "write C++ and Notepad++ for LGBTQ+ folks"}, {text: "not ab"}, {text: "cd"}}},
		// The intensifiers of chat end a phrase, as "really" does.
		{"It was super exciting and pretty cold. I'm gonna start a dance studio.",
			[]phrase{{text: "exciting"}, {text: "cold"}, {text: "start a dance studio"}}},
	}
	for _, tt := range tests {
		if got := splitPhrases(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("splitPhrases(%q)\n got %+v\nwant %+v", tt.text, got, tt.want)
		}
	}
}

func TestNotesRoundTrip(t *testing.T) {
	notes := []note{
		{phrase: phrase{text: "joined a nearby church"}, turn: 0}, {phrase: phrase{text: "Sunday"}, turn: 0}, {phrase: phrase{text: "choir practice"}, turn: 0, reply: true},
		{phrase: phrase{text: "called get_weather({\"city\":\"Paris\"})"}, turn: 1, reply: true},
		{phrase: phrase{text: "three times a week"}, turn: 3},
		{phrase: phrase{text: "moved to Sweden"}, turn: 4, by: "Caroline"}, {phrase: phrase{text: "4 years ago"}, turn: 4, by: "Caroline"},
		{phrase: phrase{text: "looked it up"}, turn: 4, reply: true}, {phrase: phrase{text: "Umea"}, turn: 4, reply: true, by: "maps"},
	}
	text := renderNotes(notes)
	want := notesHeading + "\njoined a nearby church; Sunday → choir practice\n→ called get_weather({\"city\":\"Paris\"})\nthree times a week" +
		"\nCaroline: moved to Sweden; 4 years ago → looked it up; maps: Umea"
	if text != want {
		t.Fatalf("rendered\n%s\nwant\n%s", text, want)
	}
	got := previousNotes(text)
	wantLines := [][2][]notePhrase{
		{{{"joined a nearby church", ""}, {"Sunday", ""}}, {{"choir practice", ""}}},
		{nil, {{"called get_weather({\"city\":\"Paris\"})", ""}}},
		{{{"three times a week", ""}}, nil},
		{{{"moved to Sweden", "Caroline"}, {"4 years ago", "Caroline"}}, {{"looked it up", ""}, {"Umea", "maps"}}},
	}
	if fmt.Sprint(got) != fmt.Sprint(wantLines) {
		t.Fatalf("parsed %q, want %q", got, wantLines)
	}
	// Notes that name no speaker have the shorter heading, read back alike.
	unnamed := renderNotes(notes[:5])
	if want := unnamedNotesHeading + strings.TrimPrefix(strings.Split(want, "\nCaroline")[0], notesHeading); unnamed != want {
		t.Fatalf("rendered\n%s\nwant\n%s", unnamed, want)
	}
	if got := previousNotes(unnamed); fmt.Sprint(got) != fmt.Sprint(wantLines[:3]) {
		t.Fatalf("parsed %q, want %q", got, wantLines[:3])
	}
	// A summary an earlier version wrote is read as notes too.
	for _, h := range legacyNotesHeadings {
		if legacy := previousNotes(h + strings.TrimPrefix(text, notesHeading)); fmt.Sprint(legacy) != fmt.Sprint(wantLines) {
			t.Fatalf("under %q parsed %q, want %q", h, legacy, wantLines)
		}
	}
	// A summary this summarizer did not write is read as prose.
	prose := previousNotes("## Goal\nThe user plans a trip to Lisbon in May.")
	if len(prose) != 1 || !slices.ContainsFunc(prose[0][0], func(p notePhrase) bool { return strings.Contains(p.text, "plans a trip to Lisbon") }) {
		t.Fatalf("prose read as %q", prose)
	}
}

func FuzzSplitPhrases(f *testing.F) {
	f.Add("I joined a nearby church yesterday. So far it's been really great!")
	f.Add(`"The Great Gatsby" by F. Scott Fitzgerald, https://x.y/z?q=1; main.go v2.3`)
	f.Add("a\u00a0b\u2019s — ‘quoted’ … ¿qué? 7 May 2023 $30 #12 @me")
	f.Add("a\xffb") // an invalid byte once read past the end of the field
	f.Fuzz(func(t *testing.T, text string) {
		have := normalizeWords(text)
		for _, p := range splitPhrases(text) {
			if p.text == "" || strings.TrimSpace(p.text) != p.text || !hasContent(strings.Fields(p.text)) {
				t.Fatalf("bad phrase %q from %q", p.text, text)
			}
			// A phrase is the text's own words, in their order.
			if !strings.Contains(have, normalizeWords(p.text)) {
				t.Fatalf("phrase %q is not in %q", p.text, text)
			}
		}
	})
}

func FuzzPreviousNotes(f *testing.F) {
	f.Add(notesHeading + "\njoined a nearby church; Sunday → choir practice\n→ called f(x)\nthree times a week")
	f.Add("## Goal\nplain prose; with → arrows")
	f.Add(notesHeading + "\n;;→;\n → \n")
	f.Add(notesHeading + "\nx\xffy")
	f.Fuzz(func(t *testing.T, prev string) {
		lines := previousNotes(prev)
		var notes []note
		for i, l := range lines {
			for side, part := range l {
				for _, p := range part {
					if p.text == "" || strings.ContainsAny(p.text, "\n;") {
						t.Fatalf("bad phrase %q from %q", p.text, prev)
					}
					notes = append(notes, note{phrase: phrase{text: p.text}, turn: i, reply: side == 1, by: p.by})
				}
			}
		}
		// Reading back what was written gives the same lines.
		if again := previousNotes(renderNotes(notes)); len(notes) > 0 && fmt.Sprint(again) != fmt.Sprint(dropEmpty(lines)) {
			t.Fatalf("round trip of %q:\n got %q\nwant %q", prev, again, dropEmpty(lines))
		}
	})
}

func dropEmpty(lines [][2][]notePhrase) [][2][]notePhrase {
	var out [][2][]notePhrase
	for _, l := range lines {
		if len(l[0])+len(l[1]) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// normalizeWords lower-cases s and keeps its words, one space apart, with a
// space at each end so that containment means whole words.
func normalizeWords(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// TestReplyWeighedWithUserSide: a reply that brings a long, vague user
// note with it is weighed with that note, whose room it takes too: it
// does not push out a better note that needs no company.
func TestReplyWeighedWithUserSide(t *testing.T) {
	c := counter(t)
	mk := func(text string, turn int, reply bool, worth float64) note {
		n := note{phrase: phrase{text: text}, turn: turn, reply: reply, words: []string{text}, worth: []float64{worth}}
		n.cost = c.Count(text) + 1
		n.length = float64(n.cost) + phraseLengthBias
		n.score = worth / n.length
		return n
	}
	cands := []note{
		mk("whatever works for the general situation of the usual things and the rest of the week", 0, false, 2),
		mk("Zanzibar Quokka", 0, true, 30),
		mk("booked a table at the noodle bar downtown", 1, false, 20),
	}
	ex := &Engine{Counter: c}
	budget := c.Count(unnamedNotesHeading) + 1 + cands[0].cost + cands[1].cost + 2 // room for the pair or the note, not both
	got := renderNotes(ex.fit(cands, budget))
	if !strings.Contains(got, "noodle bar") {
		t.Errorf("the reply and its vague user note won over a better note:\n%s", got)
	}
}

// The words of a list are weighed as themselves, not with the commas
// that join the items: "fruits," is "fruits", one word with "fruits"
// said elsewhere.
func TestListItemsWeighAsTheirWords(t *testing.T) {
	n := scoreFlat(t, "vegetables, fruits, and insects")
	if want := []string{"vegetables", "fruits", "insects"}; !slices.Equal(n.words, want) {
		t.Errorf("words %q, want %q", n.words, want)
	}
}

// A list's word counts in the document frequencies as the word does.
func TestListWordsCountAsTheirWord(t *testing.T) {
	c, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"We ate apples, fruits, and pears.", "Dried fruits keep."}
	recs := conversation(2, func(i int) string { return texts[i] })
	s := &noteSet{e: &Engine{Counter: c}, recs: recs, each: SliceStream(recs)}
	if err := s.scan(""); err != nil {
		t.Fatal(err)
	}
	if got := s.docFreq("fruits"); got != 2 {
		t.Errorf(`docFreq("fruits") = %d, want 2 (one list, one phrase)`, got)
	}
}

// conversation builds n alternating user/assistant records through the
// real appender.
func conversation(n int, text func(i int) string) []transcript.Record {
	app := transcript.NewAppender("c", nil, transcript.NewIDs(), func() int64 { return 1000 })
	var out []transcript.Record
	for i := range n {
		role := transcript.RoleUser
		if i%2 == 1 {
			role = transcript.RoleAssistant
		}
		for _, ch := range app.Append(transcript.Record{Message: transcript.Message{Role: role, Contents: []string{text(i)}}}) {
			out = append(out, ch.Record.Clone())
		}
	}
	return out
}
