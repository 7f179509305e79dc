package summarize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A phrase is what the extractive summarizer keeps: a run of words between
// punctuation and function words (pronouns, auxiliaries, fillers), such as
// "joined a nearby church", "Becoming Nicole" or "three times a week". Cutting
// at those words drops what carries no fact ("I've been", "that's so") and
// keeps what does, together with its own articles and prepositions, in about
// half the words of the sentences it comes from.
type phrase struct {
	text string
	// firstPerson: the words before it include I, we, my...: the speaker
	// tells something about themselves, where most facts worth keeping are.
	firstPerson bool
	// initial: it starts a sentence, so a capital on its first word may say
	// nothing about the word.
	initial bool
}

// splitPhrases returns the phrases of text in order.
func splitPhrases(text string) []phrase {
	var out []phrase
	var run []string
	firstPerson, initial := false, false
	// addressed: the run follows a greeting ("Hey", "Thanks,", "you,"),
	// so a name alone in it is a form of address.
	addressed, before := false, ""
	// flush ends the run; ended: at a stop, comma or line end, where a
	// form of address ends ("Hey Mel!"), not at a word.
	flush := func(ended bool) {
		for len(run) > 0 && stopwords[foldWord(run[len(run)-1])] && !startsUpper(run[len(run)-1]) {
			run = run[:len(run)-1]
		}
		if hasContent(run) && !smallTalk(run, addressed && ended) {
			out = append(out, phrase{text: strings.Join(run, " "), firstPerson: firstPerson, initial: initial})
		}
		run = run[:0]
		firstPerson = false
	}
	for _, line := range strings.Split(text, "\n") {
		sentenceStart := true
		before = ""
		for _, field := range strings.Fields(line) {
			for _, tok := range fieldTokens(field) {
				if !tok.word {
					flush(true)
					if tok.text != "," {
						before = ""
					}
					if strings.ContainsAny(tok.text, ".!?:") {
						sentenceStart = true
					}
					continue
				}
				lw := foldWord(tok.text)
				// A capital inside a sentence makes a break word part of a
				// name or title: "The Great Gatsby", "7 May 2023". "I" is
				// always capitalized and always a pronoun.
				titled := !sentenceStart && startsUpper(tok.text) && stem(tok.text) != "i"
				if !titled && (breakWords[lw] || breakWords[stem(tok.text)]) {
					if len(run) > 0 {
						flush(false)
					}
					before = lw
					if firstPersonWords[lw] || firstPersonWords[stem(tok.text)] {
						firstPerson = true
					}
					sentenceStart = false
					continue
				}
				if len(run) == 0 {
					initial = sentenceStart
					addressed = greetings[before] || before == "you"
				}
				run = append(run, tok.text)
				before = lw
				sentenceStart = false
			}
		}
		flush(true)
	}
	return out
}

// smallTalk reports whether a run of words says nothing a summary needs:
// a lone filler ("Sweet!", "Perfect.") or, addressed, a name alone, which
// is the person spoken to ("Hey Mel!", "Thanks, Caroline.").
func smallTalk(run []string, addressed bool) bool {
	if len(run) == 1 && fillers[foldWord(run[0])] {
		return true
	}
	if !addressed || len(run) > 2 {
		return false
	}
	for _, w := range run {
		if !startsUpper(w) {
			return false
		}
	}
	return true
}

type token struct {
	text string
	word bool // else punctuation, which ends a phrase
}

// fieldTokens splits one whitespace-delimited field into words and
// punctuation. URLs, e-mail addresses, paths, identifiers and version
// numbers stay whole.
func fieldTokens(field string) []token {
	core := strings.TrimLeftFunc(field, isEdgePunct)
	trimmed := strings.TrimRightFunc(core, isEdgePunct)
	var out []token
	if lead := field[:len(field)-len(core)]; lead != "" {
		out = append(out, token{text: lead})
	}
	switch {
	case trimmed == "":
	case atomic(trimmed):
		out = append(out, token{text: trimmed, word: true})
	default:
		start := -1
		for i, r := range trimmed {
			if isWordRune(trimmed, i, r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				out = append(out, token{text: trimmed[start:i], word: true})
				start = -1
			}
			out = append(out, token{text: string(r)})
		}
		if start >= 0 {
			out = append(out, token{text: trimmed[start:], word: true})
		}
	}
	if trail := core[len(trimmed):]; trail != "" {
		out = append(out, token{text: trail})
	}
	return out
}

// isWordRune: letters and digits, an apostrophe or hyphen joining two of
// them ("Caroline's", "sci-fi"), a colon or comma joining two digits
// ("08:40", "1,000").
func isWordRune(s string, i int, r rune) bool {
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return true
	}
	if i == 0 {
		return false
	}
	// The width comes from the text, not from r: an invalid byte is one
	// byte wide while utf8.RuneLen(RuneError) is three.
	_, width := utf8.DecodeRuneInString(s[i:])
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+width:])
	switch r {
	case '\'', '’', '-':
		return (unicode.IsLetter(before) || unicode.IsDigit(before)) && (unicode.IsLetter(after) || unicode.IsDigit(after))
	case ':', ',':
		return unicode.IsDigit(before) && unicode.IsDigit(after) // 08:40, 1,000
	}
	return false
}

func isEdgePunct(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '$' && r != '€' && r != '£' && r != '#' && r != '@' && r != '/'
}

// atomic reports whether a field is kept as one word: it holds "://", "@",
// "_", "/", a dot inside it ("main.go", "3.5") or a camelCase joint.
func atomic(s string) bool {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return false // "##", "--": punctuation
	}
	if strings.ContainsAny(s, "@_/\\`") || strings.Contains(s, "://") || hasCamel(s) {
		return true
	}
	if i := strings.IndexByte(s, '.'); i > 0 && i < len(s)-1 {
		return true
	}
	return strings.ContainsAny(s, "$€£#")
}

// foldWord lower-cases a word and drops its apostrophes: "I've" is "ive".
func foldWord(w string) string {
	w = strings.ToLower(w)
	if strings.ContainsAny(w, "'’") {
		w = strings.NewReplacer("'", "", "’", "").Replace(w)
	}
	return w
}

// stem is a word's part before an apostrophe, lower-cased: "that's" is "that".
func stem(w string) string {
	if i := strings.IndexAny(w, "'’"); i > 0 {
		return strings.ToLower(w[:i])
	}
	return strings.ToLower(w)
}

func hasContent(words []string) bool {
	for _, w := range words {
		if isContent(w) {
			return true
		}
	}
	return false
}

func isContent(w string) bool {
	lw := foldWord(w)
	return len(lw) > 1 && !stopwords[lw]
}

// breakWords end a phrase: pronouns, auxiliaries, fillers, conjunctions
// that join clauses. "and", "of", "a", "the" and prepositions do not: they
// hold names and facts together ("Bank of America", "once a week"); nor
// do negations, which a phrase cut after them would turn around ("don't
// eat meat" is not "eat meat").
var breakWords = wordSet(`i me my mine myself we us our ours you your yours yourself he him his she her hers
	it its they them their theirs this that these those there here what which who whom whose when where why how
	am is are was were be been being have has had having do does did doing will would can could should shall
	might must may im ive id youre youve thats ill hes shes
	theyre weve really just so very too also actually totally definitely absolutely wow yeah yes oh ok okay hey
	hi hello thanks thank lol haha awesome amazing great cool nice sure sorry glad think thought know knew
	bye goodbye congrats congratulations cheers
	if then but because though although since while as than`)

var firstPersonWords = wordSet(`i we my our me us ive weve im myself ours mine id`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
