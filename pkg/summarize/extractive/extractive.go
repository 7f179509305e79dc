package extractive

import (
	"cmp"
	"fmt"
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/summarize/internal/work"
	"github.com/convo-cli/convo/pkg/summarize/span"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Engine is the default summarizer's engine: offline, deterministic,
// byte-stable.
// It keeps clauses, verbatim: every covered record is cut into clauses
// (see splitClauses and doc.go's clause rule), each scored by how rare its
// words are, and the best clauses of the previous summary and of the new
// records together are kept within the token budget, in conversation
// order, one line per turn. A clause is never cut further: a shorter note
// that drops a negation or a subject would say what was not said.
//
// A clause's score is the sum over its content words of the word's rarity in
// general text (from the tokenizer's vocabulary, see tokens.Rarity) and its
// inverse frequency among the clauses being weighed (TF-IDF's idf),
// divided by the clause's cost in tokens plus a fixed bias, so clauses of
// rare words win over long vague ones.
// Clauses are taken best first by what they add to those taken already:
// a word the summary holds counts for less (repeatWorth), so the room goes
// to facts not yet kept rather than to the same topic said again.
type Engine struct {
	Counter *tokens.Counter
}

// noText is the summary of a span that holds no clause.
const noText = "(the records it covers hold no text)"

// defaultMaxTokens bounds a text given no bound.
const defaultMaxTokens = 4000

// note is one candidate clause and where it goes.
type note struct {
	clause
	turn  int    // line of the summary
	reply bool   // after the arrow: said by the assistant or a tool
	by    string // the speaker's name, when the record names one
	score float64
	cost  int
	// words are the clause's distinct content words, folded, with what
	// each is worth to it; length divides their sum (see score).
	words  []string
	worth  []float64
	length float64
}

// Summarize writes the summary's text: it reads the records and the
// previous summary, not a text rendered of them: it needs structure.
func (e *Engine) Summarize(in span.Input) (string, error) {
	budget := in.MaxTokens
	if budget <= 0 {
		budget = defaultMaxTokens
	}
	s := &noteSet{e: e, each: in.Stream(), tools: in.Tools}
	if in.Each == nil {
		s.recs = in.Records
	}
	s.ledgerWords = ledgerWords(in.Facts)
	if err := s.scan(in.Previous); err != nil {
		return "", err
	}
	if s.n == 0 {
		// Records of blank text only ("\t", " "): no clause to keep, but
		// the span must still fold (an empty answer is refused, and the
		// conversation could then never be summarized).
		return noText, nil
	}
	notes, err := s.fit(budget)
	if err != nil {
		return "", err
	}
	text := renderNotes(notes, in.Tools)
	// Facts of the ledger the notes already hold are not repeated after
	// them: their room goes to more notes, if the facts that then remain
	// missing still fit.
	if all := in.FactsTokens; all > 0 {
		if extra := all - facts.Cost(facts.Missing(text, in.Facts), in.FactsDropped, e.Counter); extra > 0 {
			notes, err := s.fit(budget + extra)
			if err != nil {
				return "", err
			}
			more := renderNotes(notes, in.Tools)
			if e.Counter.Count(more)+facts.Cost(facts.Missing(more, in.Facts), in.FactsDropped, e.Counter) <= budget+all {
				text = more
			}
		}
	}
	// A budget too small for the heading (a span of a few tokens) gets
	// the notes bare, then fewer of them, the later lines first: a summary
	// never outgrows its budget, and a note is never cut (doc.go).
	if limit := budget + in.FactsTokens - facts.Cost(facts.Missing(text, in.Facts), in.FactsDropped, e.Counter); e.Counter.Count(text) > max(limit, budget) {
		if rest, ok := cutNotesHeading(text); ok {
			text = strings.TrimPrefix(rest, "\n")
		}
		for e.Counter.Count(text) > budget {
			i := max(strings.LastIndex(text, "\n"), strings.LastIndex(text, noteSep), strings.LastIndex(text, replySep))
			if i <= 0 {
				break // one note, whole: a note is never cut
			}
			text = text[:i]
		}
	}
	return text, nil
}

// recordClauses are the clauses of one record; a tool call is one clause,
// its arguments clipped, and a tool error says so. Under an agent
// session's sections (tools) a tool's result and call make no clause: the
// sections hold them, and the notes are the decisions (doc.go).
func recordClauses(r transcript.Record, tools bool) []clause {
	if tools && r.Message.Role == transcript.RoleTool {
		return nil
	}
	var out []clause
	if r.Message.Role == transcript.RoleTool && r.Message.IsError {
		out = append(out, clause{text: "error from " + cmp.Or(r.Message.Name, "tool")})
	}
	for _, c := range r.Message.Contents {
		if r.Message.Role == transcript.RoleTool && len(c) > maskedResult {
			// A long tool result is masked, as agent CLIs mask old
			// output: its first line and its size; its paths reach the
			// ledger. Its error lines, wherever they sit, are taken
			// first (facts.ErrorLines): each is a note of its own, and
			// they reach the Errors section of an agent session.
			first, _, _ := strings.Cut(strings.TrimSpace(c), "\n")
			out = append(out, clause{text: fmt.Sprintf("%s [%d lines]", clipWords(first, maskedWords), strings.Count(c, "\n")+1)})
			for _, line := range facts.ErrorLines(c, r.Message.IsError) {
				if line != strings.TrimSpace(first) {
					out = append(out, clause{text: strings.Join(strings.Fields(line), " ")})
				}
			}
			continue
		}
		if r.Message.Role == transcript.RoleTool {
			// A tool's output is lines, not prose: a line is one note
			// ("header_test.go:41: got 3, want 4" is not cut at its colons).
			out = append(out, toolLines(c)...)
			continue
		}
		for _, cl := range splitClauses(c) {
			if !smallTalk(cl.text) {
				out = append(out, cl)
			}
		}
	}
	// What the user asked or decided matters even in small words ("yes, do
	// it"): a short user record with no clause is kept whole.
	if len(out) == 0 && r.Message.Role == transcript.RoleUser {
		if text := strings.Join(strings.Fields(strings.Join(r.Message.Contents, " ")), " "); text != "" && len(strings.Fields(text)) <= userGistWords {
			// Its ": " would read back as a speaker's label.
			out = append(out, clause{text: strings.ReplaceAll(text, ": ", ", ")})
		}
	}
	for _, tc := range r.Message.ToolCalls {
		if !tools {
			out = append(out, clause{text: "called " + tc.Name + "(" + clipWords(tc.Arguments, 12) + ")"})
		}
	}
	for i := range out {
		out[i].text = sanitizeNote(out[i].text)
	}
	return out
}

// smallTalk reports whether a short clause says nothing a summary needs:
// its content words are fillers ("That's amazing!") or a name it
// addresses ("Hey Mel!", "Thanks, Caroline!", "Aww, Deb").
func smallTalk(text string) bool {
	if strings.Count(text, " ") >= 2*smallTalkWords {
		return false // cheaper than its words: too long to be small talk
	}
	greeted := false
	n := 0
	for f := range strings.FieldsSeq(text) {
		w := strings.TrimFunc(f, isNoteMark)
		if w == "" {
			continue
		}
		if n++; n > smallTalkWords {
			return false
		}
		lw := foldWord(w)
		if greetings[lw] {
			greeted = true
		}
		if !isContent(w) || fillers[lw] || greetings[lw] {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) && (greeted || n > 1 && strings.Contains(text, ", "+w)) {
			continue // the person spoken to
		}
		return false
	}
	return true
}

// isNoteMark reports the punctuation and quotes around a word of a note.
func isNoteMark(r rune) bool {
	switch r {
	case ',', '.', '!', '?', ';', ':', '"', '\'', '(', ')', '*', '_', '…', '“', '”', '‘', '’':
		return true
	}
	return false
}

// smallTalkWords: a clause of more words is never small talk.
const smallTalkWords = 6

// fillers and greetings are the English words of small talk (the
// stopwords hold the most common ones: "wow", "great", "thanks").
var (
	fillers   = wordSet(`amazing sweet perfect lovely wonderful fantastic incredible awesome congrats congratulations glad happy proud excited exciting totally true right agreed absolutely sounds fun cute beautiful nice great cool wow yay yep yup aww omg haha lol hehe`)
	greetings = wordSet(`hey hi hello thanks thank bye goodbye congrats congratulations cheers aww wow yay yep oh dear`)
)

// toolLines are the lines of a short tool result that hold a content
// word, each whole.
func toolLines(text string) []clause {
	var out []clause
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.Join(strings.Fields(line), " "); hasContent(wordsOf(line)) {
			out = append(out, clause{text: line})
		}
	}
	return out
}

// maskedResult: a tool result longer than this many bytes is masked to
// maskedWords words of its first line and its size.
const (
	maskedResult = 300
	maskedWords  = 12
)

// userGistWords: a user record with no clause of content words is kept
// whole up to this many words ("yes, do it", "ok go ahead"); a longer one
// is not a note (cutting it could change what it says).
const userGistWords = 12

// sanitizeNote keeps a clause from holding the separators of the notes,
// and from opening with what would read back as a speaker's label: "No
// change there: another logging package" keeps its colon, but with a
// no-break space after it, so the next summary does not read "another
// logging package" as said by "No change there".
func sanitizeNote(s string) string {
	if strings.ContainsAny(s, ";→\n") {
		s = strings.NewReplacer(";", ",", "→", "->", "\n", " ").Replace(s)
	}
	if i := strings.Index(s, ": "); i < 0 || i > 4*40+4 {
		return s // labelRE needs ": " after at most 40 runes
	}
	if m := labelRE().FindStringIndex(s); m != nil {
		s = s[:m[1]-1] + "\u00a0" + s[m[1]:]
	}
	return s
}

// label is the name a note shows for its speaker: the record's name, if
// it has one a label can hold, else "" (the side of the arrow says the role).
func label(r transcript.Record) string {
	if name := strings.TrimSpace(r.Message.Name); labelRE().MatchString(name + ": ") {
		return name
	}
	return ""
}

// labelRE is a speaker's label at the start of a clause: a name of
// letters, digits, spaces, dots, hyphens and underscores, then ": ".
var labelRE = work.LazyRegexp(`^([\p{L}\p{N}_.-][\p{L}\p{N}_. -]{0,39}): `)

// ledgerWords are the distinct folded content words of the ledger's
// labels and facts, as a note's words are counted.
func ledgerWords(fs []facts.Fact) []string {
	var words []string
	for _, f := range fs {
		for w := range noteWords(f.Label + " " + f.Text) {
			if isContent(w) {
				words = append(words, w)
			}
		}
	}
	return distinctFolded(words)
}

func distinctFolded(ws []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range ws {
		lw := foldWord(w)
		if !seen[lw] {
			seen[lw] = true
			out = append(out, lw)
		}
	}
	return out
}

// noteWords yields the words of a clause's text, less the marks around
// them: "fruits" of "vegetables, fruits, and insects." (identifiers, URLs,
// versions and amounts stay whole: see appendFieldTokens).
func noteWords(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		var buf [8]token
		for f := range strings.FieldsSeq(text) {
			for _, t := range appendFieldTokens(buf[:0], f) {
				if t.word && !emphasis(t.text) && !yield(t.text) {
					return
				}
			}
		}
	}
}

// stopwords are words no fact rests on: a clause needs a word besides them.
var stopwords = wordSet(`a an the and or but if then so of to in on at by for with from as is are was were be been being
		am do does did have has had having i me my mine we us our you your yours he him his she her hers it its they them their
		this that these those there here what which who whom whose when where why how all any both each few more most other some
		such no nor not only own same than too very can will just should now also into about over again further once up down out
		off under until while would could might must shall may let lets get got gets im ive id youre youve thats its dont doesnt
		didnt isnt arent wasnt werent wont cant really yeah yes oh ok okay hey hi hello thanks thank lot much well like just user
		assistant tool re ve ll don doesn didn isn aren wasn weren won here there wow great awesome cool nice sure sorry good bad`)
