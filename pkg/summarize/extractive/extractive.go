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
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Engine is the default summarizer's engine: offline, deterministic,
// byte-stable.
// It keeps phrases, not sentences: every covered record is cut into phrases
// (see splitPhrases), each scored by how rare its words are, and the
// best phrases of the previous summary and of the new records together are
// kept within the token budget, in conversation order, one line per turn.
// Phrases carry the facts of a sentence in about half its words, so a
// budget holds twice as many facts as whole sentences would.
//
// A phrase's score is the sum over its content words of the word's rarity in
// general text (from the tokenizer's vocabulary, see tokens.Rarity) and its
// inverse frequency among the phrases being weighed (TF-IDF's idf),
// divided by the phrase's cost in tokens plus a fixed bias, so phrases of
// rare words win over long vague ones.
// Phrases are taken best first by what they add to those taken already:
// a word the summary holds counts for less (repeatWorth), so the room goes
// to facts not yet kept rather than to the same topic said again.
type Engine struct {
	Counter *tokens.Counter
}

// Input is what the engine summarizes.
type Input struct {
	// Previous is the previous summary's text without its ledger ("" for
	// the first summary).
	Previous string
	// Records are the records folded in; Each, when set, replays them
	// instead, in order, as often as it is called: a long span is
	// streamed from the store, never held.
	Records []transcript.Record
	Each    RecordStream
	// MaxTokens bounds the text.
	MaxTokens int
	// Facts is the ledger the text is followed by, unless it holds them
	// word for word; FactsTokens is their room, which notes that hold
	// some facts may use.
	Facts        []facts.Fact
	FactsDropped int
	FactsTokens  int
}

// RecordStream calls fn for each record of a span, in order; fn's error
// ends the stream and is returned. The record is valid only during the
// call.
type RecordStream func(fn func(*transcript.Record) error) error

// records is the stream of the records folded in: Each, or Records.
func (in Input) records() RecordStream {
	if in.Each != nil {
		return in.Each
	}
	return SliceStream(in.Records)
}

// SliceStream is the stream of recs, held.
func SliceStream(recs []transcript.Record) RecordStream {
	return func(fn func(*transcript.Record) error) error {
		for i := range recs {
			if err := fn(&recs[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// defaultMaxTokens bounds a text given no bound.
const defaultMaxTokens = 4000

// note is one candidate phrase and where it goes.
type note struct {
	phrase
	turn  int    // line of the summary
	reply bool   // after the arrow: said by the assistant or a tool
	by    string // the speaker's name, when the record names one
	score float64
	cost  int
	// words are the phrase's distinct content words, folded, with what
	// each is worth to it; length divides their sum (see score).
	words  []string
	worth  []float64
	length float64
}

// Summarize writes the summary's text: it reads the records and the
// previous summary, not a text rendered of them: it needs structure.
func (e *Engine) Summarize(in Input) (string, error) {
	budget := in.MaxTokens
	if budget <= 0 {
		budget = defaultMaxTokens
	}
	s := &noteSet{e: e, each: in.records()}
	if in.Each == nil {
		s.recs = in.Records
	}
	s.ledgerWords = ledgerWords(in.Facts)
	if err := s.scan(in.Previous); err != nil {
		return "", err
	}
	if s.n == 0 {
		return "", nil
	}
	notes, err := s.fit(budget)
	if err != nil {
		return "", err
	}
	text := renderNotes(notes)
	// Facts of the ledger the notes already hold are not repeated after
	// them: their room goes to more notes, if the facts that then remain
	// missing still fit.
	if all := in.FactsTokens; all > 0 {
		if extra := all - facts.Cost(facts.Missing(text, in.Facts), in.FactsDropped, e.Counter); extra > 0 {
			notes, err := s.fit(budget + extra)
			if err != nil {
				return "", err
			}
			more := renderNotes(notes)
			if e.Counter.Count(more)+facts.Cost(facts.Missing(more, in.Facts), in.FactsDropped, e.Counter) <= budget+all {
				text = more
			}
		}
	}
	// A budget too small for the heading (a span of a few tokens) gets
	// the notes bare, then clipped: a summary never outgrows its budget.
	if limit := budget + in.FactsTokens - facts.Cost(facts.Missing(text, in.Facts), in.FactsDropped, e.Counter); e.Counter.Count(text) > max(limit, budget) {
		if rest, ok := cutNotesHeading(text); ok {
			text = strings.TrimPrefix(rest, "\n")
		}
		for words := strings.Fields(text); len(words) > 1 && e.Counter.Count(text) > budget; {
			words = words[:len(words)/2]
			text = strings.Join(words, " ")
		}
	}
	return text, nil
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// recordPhrases are the phrases of one record; a tool call is one phrase,
// its arguments clipped, and a tool error says so.
func recordPhrases(r transcript.Record) []phrase {
	var out []phrase
	if r.Message.Role == transcript.RoleTool && r.Message.IsError {
		out = append(out, phrase{text: "error from " + cmp.Or(r.Message.Name, "tool")})
	}
	for _, c := range r.Message.Contents {
		if r.Message.Role == transcript.RoleTool && len(c) > maskedResult {
			// A long tool result is masked, as agent CLIs mask old
			// output: its first line and its size; its paths reach the
			// ledger. Its error lines, wherever they sit, are taken
			// first (facts.ErrorLines): each is a note of its own, and
			// they reach the Errors section of an agent session.
			first, _, _ := strings.Cut(strings.TrimSpace(c), "\n")
			out = append(out, phrase{text: fmt.Sprintf("%s [%d lines]", clipWords(first, maskedWords), strings.Count(c, "\n")+1)})
			for _, line := range facts.ErrorLines(c, r.Message.IsError) {
				if line != strings.TrimSpace(first) {
					out = append(out, phrase{text: line})
				}
			}
			continue
		}
		out = append(out, splitPhrases(c)...)
	}
	// What the user asked or decided matters even in small words ("yes, do
	// it"): a user record with no phrase is kept as its first words.
	if len(out) == 0 && r.Message.Role == transcript.RoleUser {
		if text := strings.TrimSpace(strings.Join(r.Message.Contents, " ")); text != "" {
			// Its ": " would read back as a speaker's label.
			out = append(out, phrase{text: strings.ReplaceAll(clipWords(text, userGistWords), ": ", ", ")})
		}
	}
	for _, tc := range r.Message.ToolCalls {
		out = append(out, phrase{text: "called " + tc.Name + "(" + clipWords(tc.Arguments, 12) + ")"})
	}
	for i := range out {
		out[i].text = sanitizeNote(out[i].text)
	}
	return out
}

// maskedResult: a tool result longer than this many bytes is masked to
// maskedWords words of its first line and its size.
const (
	maskedResult = 300
	maskedWords  = 12
)

// userGistWords: the words kept of a user record that has no phrase.
const userGistWords = 6

// sanitizeNote keeps a phrase from holding the separators of the notes.
func sanitizeNote(s string) string {
	if strings.ContainsAny(s, ";→\n") {
		s = strings.NewReplacer(";", ",", "→", "->", "\n", " ").Replace(s)
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

// labelRE is a speaker's label at the start of a phrase: a name of
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

// noteWords yields the words of a phrase's text, a list's commas left
// out: "fruits," of "vegetables, fruits, and insects" is "fruits" (an
// earlier version joined lists into one note, which a previous summary
// may still hold).
func noteWords(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for w := range strings.FieldsSeq(text) {
			if !yield(strings.TrimSuffix(w, ",")) {
				return
			}
		}
	}
}

// stopwords are words no fact rests on: a phrase needs a word besides them.
var stopwords = wordSet(`a an the and or but if then so of to in on at by for with from as is are was were be been being
		am do does did have has had having i me my mine we us our you your yours he him his she her hers it its they them their
		this that these those there here what which who whom whose when where why how all any both each few more most other some
		such no nor not only own same than too very can will just should now also into about over again further once up down out
		off under until while would could might must shall may let lets get got gets im ive id youre youve thats its dont doesnt
		didnt isnt arent wasnt werent wont cant really yeah yes oh ok okay hey hi hello thanks thank lot much well like just user
		assistant tool re ve ll don doesn didn isn aren wasn weren won here there wow great awesome cool nice sure sorry good bad`)
