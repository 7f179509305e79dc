package search

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippet is a short piece of a matched text around its first match, on
// one line, and the byte ranges of the words that matched in it.
type Snippet struct {
	Text  string
	Marks [][2]int
}

// snippetWords is how many words a snippet shows before its first match,
// and snippetBytes about how long it is.
const (
	snippetWords = 6
	snippetBytes = 160
)

// Snippet returns the piece of d around the first word q looks for.
func (q *Query) Snippet(d *Doc) Snippet {
	hit := make([]bool, len(d.words))
	first := -1
	for i, w := range d.words {
		if q.marks(w.Term) {
			hit[i] = true
			if first < 0 {
				first = i
			}
		}
	}
	for _, c := range q.Clauses { // a phrase marks its words
		for _, it := range c.Items {
			if c.Not || !it.Phrase() {
				continue
			}
			if at := d.phraseAt(it); at >= 0 {
				for j := range it.Words {
					hit[at+j] = true
				}
				if first < 0 || at < first {
					first = at
				}
			}
		}
	}
	if len(d.words) == 0 {
		return Snippet{Text: oneLine(cut(d.Text, snippetBytes))}
	}
	if first < 0 {
		first = 0
	}
	from := max(first-snippetWords, 0)
	start := d.words[from].Start
	if from == 0 {
		start = 0
	}
	var b strings.Builder
	var marks [][2]int
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for i := from; i < len(d.words); i++ {
		w := d.words[i]
		if b.Len()+(w.End-pos) > snippetBytes && i > first {
			break
		}
		b.WriteString(oneLine(d.Text[pos:w.Start]))
		if hit[i] {
			marks = append(marks, [2]int{b.Len(), b.Len() + (w.End - w.Start)})
		}
		b.WriteString(oneLine(d.Text[w.Start:w.End]))
		pos = w.End
	}
	if pos < len(d.Text) {
		rest := strings.TrimRightFunc(d.Text[pos:], unicode.IsSpace)
		if len(rest) <= 3 {
			b.WriteString(oneLine(rest))
		} else {
			b.WriteString("…")
		}
	}
	return Snippet{Text: b.String(), Marks: marks}
}

// marks reports a word a positive item of q finds (whole, or by a part).
func (q *Query) marks(term string) bool {
	for _, c := range q.Clauses {
		if c.Not {
			continue
		}
		for _, it := range c.Items {
			if it.Phrase() {
				continue
			}
			if termFinds(Term{it.Words[0], it.Prefix}, term) {
				return true
			}
		}
	}
	return false
}

// termFinds reports whether t finds word: the word itself or one of its parts.
func termFinds(t Term, word string) bool {
	eq := func(x string) bool {
		if t.Prefix {
			return strings.HasPrefix(x, t.Text)
		}
		return x == t.Text
	}
	if eq(word) {
		return true
	}
	found := false
	Parts(word, func(p string) { found = found || eq(p) })
	return found
}

// oneLine turns line breaks, tabs and control characters into spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Score is how well d answers q, for ranking: BM25 over the records
// ranked, n their number and df how many of them hold each positive word
// (DocFreq), from how often d holds each and its length in words.
func (q *Query) Score(d *Doc, n int, df map[string]int, avgLen float64) float64 {
	const k1, b = 1.2, 0.75
	tf := map[string]int{}
	for _, w := range d.words {
		for _, t := range q.positive() {
			if termFinds(t, w.Term) {
				tf[t.Text]++
			}
		}
	}
	length := float64(len(d.words))
	if avgLen <= 0 {
		avgLen = 1
	}
	var s float64
	for _, t := range q.positive() {
		f := float64(tf[t.Text])
		if f == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(df[t.Text])+0.5)/(float64(df[t.Text])+0.5))
		s += idf * f * (k1 + 1) / (f + k1*(1-b+b*length/avgLen))
	}
	return s
}

// DocFreq adds to df the positive words d holds.
func (q *Query) DocFreq(d *Doc, df map[string]int) {
	for _, t := range q.positive() {
		if d.has(t) {
			df[t.Text]++
		}
	}
}

// Len is d's length in words.
func (d *Doc) Len() int { return len(d.words) }

// positive lists the words of q's positive items.
func (q *Query) positive() []Term {
	var ts []Term
	for _, c := range q.Clauses {
		if c.Not {
			continue
		}
		for _, it := range c.Items {
			for i, w := range it.Words {
				ts = append(ts, Term{w, it.Prefix && i == len(it.Words)-1})
			}
		}
	}
	return ts
}
