package extractive

import (
	"slices"
	"strings"
	"unicode"
)

// cheer reports whether a directive-shaped sentence is small talk rather
// than a standing instruction: a question ("Remember when we met?"), an
// idiom of encouragement ("Keep going", "Keep it up", "Don't give up"),
// or an exclamation that names nothing ("Don't forget to have fun!").
// An exclamation that holds a number, a quote or a capital past its
// first word ("Don't use jQuery!", "Never book over 30 EUR!") stays an
// instruction. rest is s after its directive words (see directivePrefix).
func cheer(s, rest string) bool {
	s = strings.TrimRight(s, " ")
	if strings.HasSuffix(s, "?") {
		return true
	}
	if cheerIdiom(s, rest) {
		return true
	}
	return strings.HasSuffix(s, "!") && !namesSomething(rest)
}

// cheerIdiom: "keep" with "up", "on", "it up", "me posted" or a verb in
// -ing ("keep going", "keep pushing"); "give up", "quit", "lose hope",
// "worry" or "know" after "don't" or "never", and "let" when it goes on
// to "you" ("Don't let anything stop you"); "believe in yourself"; and a
// sentence of one's own with its "I" left out ("Always here to help",
// "Never been there"): "always" or "never" before a participle, a place,
// an article or a word of mood.
func cheerIdiom(s, rest string) bool {
	words := strings.FieldsFunc(strings.ToLower(rest), func(r rune) bool { return !isAlnum(r) && r != '\'' && r != '’' })
	if len(words) == 0 {
		return false
	}
	head := strings.ToLower(strings.TrimSpace(s[:len(s)-len(rest)]))
	if i := strings.LastIndexByte(head, ' '); i >= 0 {
		head = head[i+1:]
	}
	w, next := words[0], ""
	if len(words) > 1 {
		next = words[1]
	}
	switch head {
	case "keep":
		return w == "up" || w == "on" || w == "it" && next == "up" || w == "me" && next == "posted" ||
			len(w) > 4 && strings.HasSuffix(w, "ing")
	case "don't", "dont", "not", "never":
		if w == "quit" || w == "worry" || w == "know" || w == "give" && next == "up" || w == "lose" && next == "hope" ||
			w == "let" && slices.Contains(words, "you") {
			return true
		}
	}
	if strings.Contains(strings.ToLower(rest), "believe in yourself") {
		return true
	}
	if head == "always" || head == "never" {
		return ownSentence[w] || len(w) > 4 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing"))
	}
	return false
}

// ownSentence are the words after "always" or "never" in a sentence whose
// "I" (or "I'm", "I've") is left out.
var ownSentence = wordSet(`been had here there a an the so such happy good glad great fun tried seen
	heard done gone made felt thought known`)

// namesSomething reports whether s holds a digit, a quote or backtick,
// or a capital other than the word "I".
func namesSomething(s string) bool {
	if strings.ContainsAny(s, "0123456789\"`“") {
		return true
	}
	for w := range strings.FieldsSeq(s) {
		if w == "I" || strings.HasPrefix(w, "I'") || strings.HasPrefix(w, "I’") {
			continue
		}
		if strings.ContainsFunc(w, unicode.IsUpper) {
			return true
		}
	}
	return false
}
