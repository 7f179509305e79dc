package facts

import (
	"strings"
	"sync"
)

// labelWords bounds a label.
const labelWords = 4

// label is the words next to text[start:end] that say what it is: a noun
// phrase that names it (named), or else up to labelWords words before it
// in its clause (after prev, the end of the fact before), or after it
// (before next), less the function words at either end.
func label(text string, start, end, prev, next int) (label string, named bool) {
	before := clause(strings.TrimRight(text[prev:start], " \t:=#(\"'“`"), true)
	rest := text[end:next]
	// "X, our accounts mailbox": an apposition names it.
	apposition := strings.HasPrefix(rest, ", ")
	after := words(clause(strings.TrimPrefix(rest, ", "), false))
	// "X is the courier reference", "X as the offending commit".
	if len(after) > 2 && copulas[strings.ToLower(after[0])] && determiners[strings.ToLower(after[1])] {
		return firstLabel(after[2:]), true
	}
	if len(after) > 1 && apposition && determiners[strings.ToLower(after[0])] {
		return firstLabel(after[1:]), true
	}
	// "the courier reference is X", "our PO number: X".
	b := lastWords(before, labelWords+2)
	for len(b) > 0 && functionWord(b[len(b)-1]) && !determiners[strings.ToLower(b[len(b)-1])] {
		b = b[:len(b)-1]
	}
	for i := len(b) - 2; i >= 0; i-- {
		if determiners[strings.ToLower(b[i])] {
			if l := trimFunction(b[i+1:]); l != "" && len(b)-i-1 <= labelWords {
				return l, true
			}
			break
		}
	}
	if l := trimFunction(lastWords(before, labelWords)); l != "" {
		return l, false
	}
	if apposition {
		return "", false
	}
	return firstLabel(after), false
}

// firstLabel is the label at the start of words: up to labelWords words
// after the function words that lead them.
func firstLabel(w []string) string {
	for len(w) > 0 && functionWord(w[0]) {
		w = w[1:]
	}
	return trimFunction(w[:min(labelWords, len(w))])
}

var copulas = map[string]bool{"is": true, "was": true, "as": true, "are": true, "were": true}

// clause is the part of s in the fact's clause: after the last stop of s
// (fromEnd), or before its first.
func clause(s string, fromEnd bool) string {
	const stops = ".!?;:()[]{}|\n\"“”→,"
	if fromEnd {
		if i := strings.LastIndexAny(s, stops); i >= 0 {
			return s[i+1:]
		}
		return s
	}
	if i := strings.IndexAny(s, stops); i >= 0 {
		return s[:i]
	}
	return s
}

func lastWords(s string, n int) []string {
	w := words(s)
	return w[max(0, len(w)-n):]
}

// words are the fields of s less the marks around them (quotes, code and
// emphasis marks).
func words(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		if w = strings.Trim(w, "`*_\"'“”‘’"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// trimFunction joins words less the function words at either end: "my
// courier reference is" is "courier reference".
func trimFunction(words []string) string {
	for len(words) > 0 && functionWord(words[0]) {
		words = words[1:]
	}
	for len(words) > 0 && functionWord(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	// A determiner opens the noun phrase that names the fact: "note the
	// courier reference" is "courier reference".
	for i := len(words) - 1; i > 0; i-- {
		if determiners[strings.ToLower(words[i-1])] {
			words = words[i:]
			break
		}
	}
	return strings.Join(words, " ")
}

var determiners = map[string]bool{"a": true, "an": true, "the": true, "my": true, "your": true, "our": true, "their": true, "his": true, "her": true, "its": true, "this": true, "that": true}

// functionWords: English; a label of another language keeps them.
var functionWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the my your our their his her its this that these those is are was were be been
		am it it's i i'm we you he she they to at in on of for from by with as and or but so please just also here there
		thanks thank ok okay yes no sure still now again actually really currently it’s i’m`) {
		m[w] = true
	}
	return m
})

func functionWord(w string) bool { return functionWords()[strings.ToLower(strings.Trim(w, "'\"*_"))] }
