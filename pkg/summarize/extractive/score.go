package extractive

import (
	"math"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Every weight of the notes' scoring, in one place. Each was measured on
// make eval (docs/summarize.md gives the figures); a note's score is the
// sum over its content words of the word's rarity in general text (the
// tokenizer's vocabulary, tokens.Rarity) and its inverse frequency among
// the candidates, a word that names or counts something worth
// specificWorth times as much, divided by the note's tokens plus
// clauseLengthBias; repeatWorth weighs what fit adds, a word of the
// ledger's labels and facts counting as held already.

// clauseLengthBias is added to a clause's cost in tokens before its score
// is divided by it: the larger, the more a long clause with many rare
// words is worth against a short one (with clauses as notes LoCoMo keeps
// 0.558 of its answers at 2, 0.544 at 1, 0.532 at 0, 0.539 at 5, 0.507 at
// 10).
const clauseLengthBias = 2

// specificWorth multiplies a word that names or counts something: a
// capitalized word that does not open its clause, a number in digits or
// in words (LoCoMo's answers kept 0.458 without it, 0.539 with it, 0.505
// at 1.5, 0.558 at 3 against 0.558 at 2, less recall:
// docs/summarize-log.md).
const specificWorth = 2

// quantityWorth multiplies what the words of a clause that counts time
// are worth ("twice a week", "for 3 years", "every morning", "last
// Friday"): how often, how long and when are what a long chat is asked
// about, yet such a clause is made of common words that rarity alone
// rates low. With number words, it keeps 0.012 more of LoCoMo's answers
// under clauses (docs/summarize-log.md).
const quantityWorth = 1.3

// score sets a candidate's score (see Extractive), and what each of its
// words is worth, for fit to weigh what a summary holds already: n
// candidates, df giving how many of them hold a folded word, rarity a
// word's rarity.
func (e *Engine) score(c *note, n float64, df func(string) int, rarity func(string) float64) {
	c.words, c.worth = c.words[:0], c.worth[:0]
	sum := 0.0
	factor := 1.0
	if countsTime(c.text) {
		factor = quantityWorth
	}
	at := -1
	for w := range noteWords(c.text) {
		at++
		if !isContent(w) {
			continue
		}
		lw := foldWord(w)
		x := rarity(lw) + math.Log(1+n/float64(df(lw)))
		if specific(w, at) || numberWords[lw] {
			x *= specificWorth
		}
		x *= factor
		sum += x
		if j := slices.Index(c.words, lw); j >= 0 {
			c.worth[j] += x
		} else {
			c.words, c.worth = append(c.words, lw), append(c.worth, x)
		}
	}
	c.cost = e.Counter.Count(c.text) + 1 // and its separator
	c.length = float64(c.cost) + clauseLengthBias
	c.score = sum / c.length
}

// specific reports whether the word at place at of its clause names or
// counts something: a capital is a name's only when the word does not
// open the clause (notes keep the text's casing).
func specific(w string, at int) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsDigit(r) || unicode.IsUpper(r) && at > 0
}

// repeatWorth is what a word a summary already holds still adds to a
// clause: saying it again tells little, the room is better spent on a
// clause with words the summary lacks.
const repeatWorth = 0.5

// gain is what note i adds to a summary that holds the words in held.
func gain(c *note, held map[string]bool) float64 {
	sum := 0.0
	for j, w := range c.words {
		if held[w] {
			sum += repeatWorth * c.worth[j]
		} else {
			sum += c.worth[j]
		}
	}
	return sum / c.length
}
