package extractive

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/summarize/span"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestSplitClauses(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		// A negation stays with its subject and what it negates.
		{"The backup server is not the one we use for exports.", []string{"The backup server is not the one we use for exports"}},
		{"No contractor has access to the audit logs.", []string{"No contractor has access to the audit logs"}},
		{"Do not order the garlic bread, it arrives cold.", []string{"Do not order the garlic bread, it arrives cold"}},
		{"The build is green for now.", []string{"The build is green for now"}},
		// A condition or time clause stays with its main clause.
		{"We won't move the servers until the lease is signed.", []string{"We won't move the servers until the lease is signed"}},
		{"If the invoice is late, call Dana.", []string{"If the invoice is late, call Dana"}},
		{"If the refund has not arrived, reply and we will open a trace.", []string{"If the refund has not arrived, reply and we will open a trace"}},
		// Coordinators part two clauses, not two nouns.
		{"I bought salt and pepper.", []string{"I bought salt and pepper"}},
		{"I fixed the fence, and we painted the barn.", []string{"I fixed the fence", "and we painted the barn"}},
		{"I tried the patch but it failed again.", []string{"I tried the patch", "but it failed again"}},
		{"Get to the point where anyone would quit and you're not going to stop.", []string{"Get to the point where anyone would quit and you're not going to stop"}},
		{"I fixed the old fence behind the barn, and the gate.", []string{"I fixed the old fence behind the barn, and the gate"}},
		// A negated frame governs all under it.
		{"I don't think the migration is safe, and we should wait.", []string{"I don't think the migration is safe, and we should wait"}},
		// "nor" and a verbless part after a negated clause go with it.
		{"We don't ship on Fridays; nor on holidays.", []string{"We don't ship on Fridays; nor on holidays"}},
		{"Never deploy on Friday - only Mondays.", []string{"Never deploy on Friday - only Mondays"}},
		// Semicolons, colons and spaced dashes part clauses.
		{"The deploy went out; the pager stayed quiet.", []string{"The deploy went out", "the pager stayed quiet"}},
		{"Update: the courier picked it up.", []string{"the courier picked it up"}},
		{"Caroline: I went to the support group; it helped.", []string{"I went to the support group", "it helped"}},
		{"the fix: revert the cache key", []string{"the fix", "revert the cache key"}},
		// Nothing inside a code span parts a clause: it is quoted verbatim.
		{"The panic message is `runtime error: index out of range [20] with length 20`; the trace points into decode.go.", []string{"The panic message is `runtime error: index out of range [20] with length 20`", "the trace points into decode.go"}},
		{"The error is `undefined: loadCacheLine` - so something uses the old name.", []string{"The error is `undefined: loadCacheLine`", "so something uses the old name"}},
		{"Run `make a; make b` and `x - y`.", []string{"Run `make a; make b` and `x - y`"}},
		// Sentences end at stops before a space; versions, paths, URLs and
		// abbreviations do not end one.
		{"Bump to v2.3.1 in main.go, e.g. now. Then see https://x.y/a.b?q=1 today!",
			[]string{"Bump to v2.3.1 in main.go, e.g. now", "Then see https://x.y/a.b?q=1 today!"}},
		{"Did you fix it? Yes.", []string{"Did you fix it?"}},
		// A fenced code block makes no clause; each line is a sentence.
		{"Run it:\n```\ngo test ./...\n```\nfirst line\nSecond line", []string{"Run it", "first line", "Second line"}},
		{"Wow, that's so cool! Thanks!", nil},
		{"", nil},
		{"- install the package\n- set `timeout=10`", []string{"install the package", "set `timeout=10`"}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range splitClauses(tt.text) {
			got = append(got, c.text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("splitClauses(%q)\n got %q\nwant %q", tt.text, got, tt.want)
		}
	}
}

func TestNotesRoundTrip(t *testing.T) {
	notes := []note{
		{clause: clause{text: "joined a nearby church"}, turn: 0}, {clause: clause{text: "Sunday"}, turn: 0}, {clause: clause{text: "choir practice"}, turn: 0, reply: true},
		{clause: clause{text: "called get_weather({\"city\":\"Paris\"})"}, turn: 1, reply: true},
		{clause: clause{text: "three times a week"}, turn: 3},
		{clause: clause{text: "moved to Sweden"}, turn: 4, by: "Caroline"}, {clause: clause{text: "4 years ago"}, turn: 4, by: "Caroline"},
		{clause: clause{text: "looked it up"}, turn: 4, reply: true}, {clause: clause{text: "Umea"}, turn: 4, reply: true, by: "maps"},
	}
	text := renderNotes(notes, false)
	want := notesHeading + "\njoined a nearby church; Sunday → choir practice\n→ called get_weather({\"city\":\"Paris\"})\nthree times a week" +
		"\nCaroline: moved to Sweden; 4 years ago → looked it up; maps: Umea"
	if text != want {
		t.Fatalf("rendered\n%s\nwant\n%s", text, want)
	}
	got := previousNotes(text)
	wantLines := [][2][]noteClause{
		{{{"joined a nearby church", ""}, {"Sunday", ""}}, {{"choir practice", ""}}},
		{nil, {{"called get_weather({\"city\":\"Paris\"})", ""}}},
		{{{"three times a week", ""}}, nil},
		{{{"moved to Sweden", "Caroline"}, {"4 years ago", "Caroline"}}, {{"looked it up", ""}, {"Umea", "maps"}}},
	}
	if fmt.Sprint(got) != fmt.Sprint(wantLines) {
		t.Fatalf("parsed %q, want %q", got, wantLines)
	}
	// Notes that name no speaker have the shorter heading, read back alike.
	unnamed := renderNotes(notes[:5], false)
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
	if len(prose) != 1 || !slices.ContainsFunc(prose[0][0], func(p noteClause) bool { return strings.Contains(p.text, "plans a trip to Lisbon") }) {
		t.Fatalf("prose read as %q", prose)
	}
}

func FuzzSplitClauses(f *testing.F) {
	f.Add("I joined a nearby church yesterday. So far it's been really great!")
	f.Add(`"The Great Gatsby" by F. Scott Fitzgerald, https://x.y/z?q=1; main.go v2.3`)
	f.Add("a\u00a0b\u2019s — ‘quoted’ … ¿qué? 7 May 2023 $30 #12 @me")
	f.Add("I don't think so, but we can; nor them - never.\nNobody came and it rained")
	f.Add("a\xffb")
	f.Fuzz(func(t *testing.T, text string) {
		have := " " + strings.Join(strings.Fields(text), " ") + " "
		for _, c := range splitClauses(text) {
			if c.text == "" || strings.TrimSpace(c.text) != c.text || !hasContent(wordsOf(c.text)) {
				t.Fatalf("bad clause %q from %q", c.text, text)
			}
			// A clause is the text's own words, verbatim, in their order.
			if !strings.Contains(have, " "+c.text) {
				t.Fatalf("clause %q is not verbatim in %q", c.text, text)
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
						t.Fatalf("bad note %q from %q", p.text, prev)
					}
					notes = append(notes, note{clause: clause{text: p.text}, turn: i, reply: side == 1, by: p.by})
				}
			}
		}
		// Reading back what was written gives the same lines.
		if again := previousNotes(renderNotes(notes, false)); len(notes) > 0 && fmt.Sprint(again) != fmt.Sprint(dropEmpty(lines)) {
			t.Fatalf("round trip of %q:\n got %q\nwant %q", prev, again, dropEmpty(lines))
		}
	})
}

func dropEmpty(lines [][2][]noteClause) [][2][]noteClause {
	var out [][2][]noteClause
	for _, l := range lines {
		if len(l[0])+len(l[1]) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestReplyWeighedWithUserSide: a reply that brings a long, vague user
// note with it is weighed with that note, whose room it takes too: it
// does not push out a better note that needs no company.
func TestReplyWeighedWithUserSide(t *testing.T) {
	c := counter(t)
	mk := func(text string, turn int, reply bool, worth float64) note {
		n := note{clause: clause{text: text}, turn: turn, reply: reply, words: []string{text}, worth: []float64{worth}}
		n.cost = c.Count(text) + 1
		n.length = float64(n.cost) + clauseLengthBias
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
	got := renderNotes(ex.fit(cands, budget), false)
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
	s := &noteSet{e: &Engine{Counter: c}, recs: recs, each: transcript.Slice(recs...)}
	if err := s.scan(""); err != nil {
		t.Fatal(err)
	}
	if got := s.docFreq("fruits"); got != 2 {
		t.Errorf(`docFreq("fruits") = %d, want 2 (one list, one sentence)`, got)
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

// A span of blank records (whitespace only) has no clause; its summary
// still says something, since an empty one is refused and the
// conversation could then never be summarized.
func TestBlankSpanHasASummary(t *testing.T) {
	for _, blank := range []string{" ", "\t", "\n \n"} {
		recs := []transcript.Record{
			{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{blank}}},
			{Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{blank}}},
		}
		got, err := (&Engine{Counter: counter(t)}).Summarize(span.Input{Records: recs})
		if err != nil || strings.TrimSpace(got) == "" {
			t.Errorf("contents %q: summary %q, %v; want a text", blank, got, err)
		}
	}
}
