package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query is a parsed search: every clause must hold. Words side by side
// must all be found, AND between them or not; OR between two items finds
// either (it binds tighter than the space and AND: `a b OR c` is a and (b
// or c)); a leading - excludes.
type Query struct {
	Clauses []Clause
	// Dropped are the query's tokens that hold no word (punctuation,
	// symbols, emoji), as written: they find and exclude nothing.
	Dropped []string
}

// Clause is one or more items joined by OR, or one item negated.
type Clause struct {
	Items []Item
	Not   bool
}

// Item is one word (a term, or a prefix when Prefix) or a phrase: words
// that must stand one after the other, each whole.
type Item struct {
	Words  []string
	Prefix bool // the last word is a prefix
}

// Phrase reports an item of more than one word.
func (it Item) Phrase() bool { return len(it.Words) > 1 }

// QueryError is a query that cannot be searched for.
type QueryError struct{ Msg string }

func (e *QueryError) Error() string { return "query: " + e.Msg }

// MaxQueryBytes bounds a query's text.
const MaxQueryBytes = 4096

// Parse reads a query: words, "phrases", a leading - to exclude a word or
// phrase, OR between two items, AND between two (what the space means
// already), and a * after a word for a prefix. Words
// are read by the tokenizer, so a query word finds the terms a record's word
// would be indexed by (a word the tokenizer splits, `a,b`, is a phrase).
func Parse(s string) (*Query, error) {
	if len(s) > MaxQueryBytes {
		return nil, &QueryError{fmt.Sprintf("longer than %d bytes", MaxQueryBytes)}
	}
	toks := lexQuery(s)
	q := &Query{}
	joinNext := false
	skipped := false     // the token before made no clause
	var dropped []string // tokens that hold no word
	op := func(t tok) bool { return t.or || t.and }
	for i, t := range toks {
		if t.and {
			// What the space between two items means already.
			if i == 0 || i == len(toks)-1 || op(toks[i-1]) || op(toks[i+1]) {
				return nil, &QueryError{"AND needs a word or phrase on each side"}
			}
			continue
		}
		if t.or {
			if i == 0 || i == len(toks)-1 || toks[i-1].or || toks[i+1].or {
				return nil, &QueryError{"OR needs a word or phrase on each side"}
			}
			if toks[i+1].and {
				return nil, &QueryError{"OR needs a word or phrase on each side"}
			}
			if toks[i-1].neg || toks[i+1].neg {
				return nil, &QueryError{"an excluded word cannot be one side of OR"}
			}
			if skipped {
				return nil, &QueryError{fmt.Sprintf("%q holds no word to find, so OR has nothing on one side", toks[i-1].text)}
			}
			joinNext = true
			continue
		}
		var it Item
		Words(t.text, func(w Word) { it.Words = append(it.Words, w.Term) })
		skipped = len(it.Words) == 0
		if skipped {
			if joinNext {
				return nil, &QueryError{fmt.Sprintf("%q holds no word to find, so OR has nothing on one side", t.text)}
			}
			dropped = append(dropped, t.raw)
			continue // punctuation alone finds nothing and excludes nothing
		}
		it.Prefix = t.prefix
		if joinNext {
			last := &q.Clauses[len(q.Clauses)-1]
			last.Items = append(last.Items, it)
			joinNext = false
			continue
		}
		q.Clauses = append(q.Clauses, Clause{Items: []Item{it}, Not: t.neg})
	}
	if joinNext {
		return nil, &QueryError{"OR needs a word or phrase on each side"}
	}
	q.Dropped = dropped
	q.Clauses = distinct(q.Clauses)
	if err := q.checkFinds(); err != nil {
		return nil, err
	}
	return q, nil
}

// distinct is cs without the clauses that repeat one before them: every
// clause must hold, so a repeated one changes nothing the query finds, and
// each costs the index a lookup (l* written a thousand times took 29 s).
func distinct(cs []Clause) []Clause {
	seen := make(map[string]bool, len(cs))
	out := cs[:0]
	for _, c := range cs {
		k := fmt.Sprintf("%#v", c) // words quoted: no two clauses share one
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// a tok is one token of a query as written: a word or a quoted phrase,
// with its marks.
type tok struct {
	text        string
	quoted, neg bool
	prefix, or  bool
	and         bool
	raw         string // as the query wrote it
}

// lexQuery cuts a query into tokens.
func lexQuery(s string) []tok {
	var toks []tok
	for i := 0; i < len(s); {
		// A space is any Unicode space (a no-break space too), decoded
		// whole: a token then never starts at one, so every step moves on.
		if r, n := utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(r) {
			i += n
			continue
		}
		var t tok
		start := i
		if next, _ := utf8.DecodeRuneInString(s[min(i+1, len(s)):]); s[i] == '-' && i+1 < len(s) && !unicode.IsSpace(next) {
			t.neg = true
			i++
		}
		if i < len(s) && s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 { // an unclosed quote ends with the query
				t.text, i = s[i+1:], len(s)
			} else {
				t.text, i = s[i+1:i+1+end], i+end+2
			}
			t.quoted = true
		} else {
			end := strings.IndexFunc(s[i:], unicode.IsSpace)
			if end < 0 {
				end = len(s) - i
			}
			t.text, i = s[i:i+end], i+end
		}
		if i < len(s) && s[i] == '*' && t.quoted {
			t.prefix = true
			i++
		}
		if !t.quoted {
			if strings.HasSuffix(t.text, "*") {
				t.text, t.prefix = strings.TrimRight(t.text, "*"), true
			}
			t.or = t.text == "OR" && !t.neg && !t.prefix
			t.and = t.text == "AND" && !t.neg && !t.prefix
		}
		t.raw = s[start:i]
		toks = append(toks, t)
	}
	return toks
}

// checkFinds: a query finds something only with a word to find that is not
// excluded; the error says what was dropped and why.
func (q *Query) checkFinds() error {
	positive := false
	for _, c := range q.Clauses {
		positive = positive || !c.Not
	}
	switch {
	case positive:
	case len(q.Clauses) == 0 && len(q.Dropped) == 0:
		// ('' from an unset shell variable: not a query of exclusions)
		return &QueryError{"no word to find: the query is empty"}
	case len(q.Dropped) > 0:
		// Say what was dropped and why, and whether anything was excluded.
		msg := fmt.Sprintf("no word to find: %s dropped, holding no word (a word is letters, digits and marks; punctuation, symbols and emoji are not indexed)", q.DroppedList())
		if len(q.Clauses) > 0 {
			msg += ", and what is left only excludes"
		}
		return &QueryError{msg}
	default:
		return &QueryError{"no word to find (a query of excluded words alone finds nothing)"}
	}
	return nil
}

// DroppedList is Dropped for people: each token Go-quoted, joined by ", ".
func (q *Query) DroppedList() string {
	quoted := make([]string, len(q.Dropped))
	for i, d := range q.Dropped {
		quoted[i] = fmt.Sprintf("%q", d)
	}
	return strings.Join(quoted, ", ")
}

// String writes q back in the query language, normalized.
func (q *Query) String() string {
	var b strings.Builder
	for i, c := range q.Clauses {
		if i > 0 {
			b.WriteByte(' ')
		}
		if c.Not {
			b.WriteByte('-')
		}
		for j, it := range c.Items {
			if j > 0 {
				b.WriteString(" OR ")
			}
			b.WriteByte('"')
			b.WriteString(strings.Join(it.Words, " "))
			b.WriteByte('"')
			if it.Prefix {
				b.WriteByte('*')
			}
		}
	}
	return b.String()
}

// Exact reports whether a backend's index expression (Index) finds exactly
// the records q matches: it does unless a phrase must be checked.
func (q *Query) Exact() bool {
	for _, c := range q.Clauses {
		for _, it := range c.Items {
			if it.Phrase() {
				return false
			}
		}
	}
	return true
}
