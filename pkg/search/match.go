package search

import "strings"

// Term is one term an index looks up: whole, or as a prefix.
type Term struct {
	Text   string
	Prefix bool
}

// Index is the expression a backend's index evaluates for a query: every
// one of All (each a choice among conjunctions of terms) holds and no term
// of None is there. It finds exactly q's matches when q.Exact(); otherwise
// (phrases) a superset, which Match narrows.
type Index struct {
	All  [][][]Term
	None []Term
}

// Index returns q's index expression.
func (q *Query) Index() Index {
	var x Index
	for _, c := range q.Clauses {
		if c.Not {
			// An excluded phrase is left to Match: a record may hold its
			// words apart.
			if it := c.Items[0]; !it.Phrase() {
				x.None = append(x.None, Term{it.Words[0], it.Prefix})
			}
			continue
		}
		var any [][]Term
		for _, it := range c.Items {
			var all []Term
			for i, w := range it.Words {
				all = append(all, Term{w, it.Prefix && i == len(it.Words)-1})
			}
			any = append(any, all)
		}
		x.All = append(x.All, any)
	}
	return x
}

// Doc is a text read for matching: its words in order and the terms an
// index holds for it.
type Doc struct {
	Text  string
	words []Word
	terms []string
	set   map[string]struct{}
}

// NewDoc reads text.
func NewDoc(text string) *Doc {
	d := &Doc{Text: text, terms: Terms(text)}
	d.set = make(map[string]struct{}, len(d.terms))
	for _, t := range d.terms {
		d.set[t] = struct{}{}
	}
	Words(text, func(w Word) { d.words = append(d.words, w) })
	return d
}

// Terms returns the terms the document is indexed by.
func (d *Doc) Terms() []string { return d.terms }

func (d *Doc) has(t Term) bool {
	if !t.Prefix {
		_, ok := d.set[t.Text]
		return ok
	}
	for _, x := range d.terms {
		if strings.HasPrefix(x, t.Text) {
			return true
		}
	}
	return false
}

// Match reports whether d matches q: what every backend's answer is held to.
func (q *Query) Match(d *Doc) bool {
	for _, c := range q.Clauses {
		found := false
		for _, it := range c.Items {
			if d.holds(it) {
				found = true
				break
			}
		}
		if found == c.Not {
			return false
		}
	}
	return true
}

// holds reports whether d holds it: a term among its terms, a phrase's
// words one after the other (each an indexed term).
func (d *Doc) holds(it Item) bool {
	for i, w := range it.Words {
		if !d.has(Term{w, it.Prefix && i == len(it.Words)-1}) {
			return false
		}
	}
	if !it.Phrase() {
		return true
	}
	return d.phraseAt(it) >= 0
}

// phraseAt returns the index in d.words where phrase it starts, or -1.
func (d *Doc) phraseAt(it Item) int {
	n := len(it.Words)
	for i := 0; i+n <= len(d.words); i++ {
		if d.wordIs(i, it, 0) {
			ok := true
			for j := 1; j < n && ok; j++ {
				ok = d.wordIs(i+j, it, j)
			}
			if ok {
				return i
			}
		}
	}
	return -1
}

func (d *Doc) wordIs(i int, it Item, j int) bool {
	w := d.words[i].Term
	if it.Prefix && j == len(it.Words)-1 {
		return strings.HasPrefix(w, it.Words[j])
	}
	return w == it.Words[j]
}
