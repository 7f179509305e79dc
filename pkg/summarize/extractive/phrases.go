package extractive

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
}

// splitPhrases returns the phrases of text in order.
func splitPhrases(text string) []phrase {
	var s phraseSplitter
	// First room for the run of words and a field's tokens, seldom
	// outgrown, and for folded words, which are only looked up.
	var runBuf [16]string
	var tokenBuf [8]token
	run, tokens := runBuf[:0], tokenBuf[:0]
	var foldBuf, stemBuf [32]byte
	inCode := false
	for line := range strings.SplitSeq(text, "\n") {
		// A fenced code block is code, not prose: its identifiers and
		// URLs reach the ledger, its lines make no phrase.
		if codeFence(line) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for field := range strings.FieldsSeq(line) {
			tokens = appendFieldTokens(tokens[:0], field)
			for _, tok := range tokens {
				if !tok.word {
					// Markdown emphasis parts no words.
					if emphasis(tok.text) {
						continue
					}
					run = s.flush(run)
					continue
				}
				lw := foldAppend(foldBuf[:0], tok.text)
				// The stem is the folded word but for an apostrophe.
				st, sameStem := lw, true
				if strings.IndexByte(tok.text, '\'') >= 0 || strings.Contains(tok.text, "’") {
					st, sameStem = stemAppend(stemBuf[:0], tok.text), false
				}
				if breakWords[string(lw)] || !sameStem && breakWords[string(st)] {
					if len(run) > 0 {
						run = s.flush(run)
					}
					continue
				}
				run = append(run, tok.text)
			}
		}
		run = s.flush(run)
	}
	return s.out
}

// phraseSplitter is splitPhrases' state: the phrases so far.
type phraseSplitter struct {
	out []phrase
}

// flush ends the run and returns it emptied.
func (s *phraseSplitter) flush(run []string) []string {
	words := run
	for len(words) > 0 && isStopword(words[len(words)-1]) && !startsUpper(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	if hasContent(words) {
		s.out = append(s.out, phrase{text: strings.Join(words, " ")})
	}
	return run[:0]
}

// codeFence reports whether a line opens or closes a fenced code block
// (Markdown's ``` or ~~~).
func codeFence(line string) bool {
	line = strings.TrimLeft(line, " \t")
	return strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")
}

// emphasis reports whether marks are Markdown emphasis alone ("**",
// "_"), which parts no words.
func emphasis(marks string) bool {
	return marks != "" && strings.Trim(marks, "*_") == ""
}

// foldWord lower-cases a word and drops its apostrophes: "I've" is "ive".
func foldWord(w string) string {
	var buf [32]byte
	if lw := foldAppend(buf[:0], w); string(lw) != w {
		return string(lw)
	}
	return w
}

// foldAppend appends foldWord(w) to dst.
func foldAppend(dst []byte, w string) []byte {
	for i := 0; i < len(w); {
		if c := w[i]; c < utf8.RuneSelf {
			if isUpper(c) {
				c += 'a' - 'A'
			}
			if c != '\'' {
				dst = append(dst, c)
			}
			i++
			continue
		}
		// An invalid byte becomes U+FFFD, as strings.ToLower makes it.
		r, n := utf8.DecodeRuneInString(w[i:])
		if r != '’' {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += n
	}
	return dst
}

// stemAppend appends a word's part before an apostrophe, lower-cased, to
// dst: "that's" is "that".
func stemAppend(dst []byte, w string) []byte {
	if i := strings.IndexAny(w, "'’"); i > 0 {
		w = w[:i]
	}
	return appendLower(dst, w)
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
	var buf [32]byte
	lw := foldAppend(buf[:0], w)
	return len(lw) > 1 && !stopwords[string(lw)]
}

func isStopword(w string) bool {
	var buf [32]byte
	return stopwords[string(foldAppend(buf[:0], w))]
}

// breakWords end a phrase: pronouns, auxiliaries, fillers and the
// intensifiers of chat ("super", "pretty", "gonna"), conjunctions
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
	if then but because though although since while as than
	wanna gonna gotta kinda sorta truly super pretty quite usually especially honestly seriously literally basically`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
