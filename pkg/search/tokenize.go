// Package search is convo's full-text search, written once in Go for every
// backend: the tokenizer that turns a record's text into the terms an index
// holds, the query language and its parser, the exact matcher a backend's
// candidates are checked with, and the snippet and rank shown to people.
// It knows nothing of stores: a backend indexes Terms and translates a
// Query's Index expression into its own syntax (FTS5, tsquery).
package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTermBytes bounds a term: a longer word (a hash, base64) is indexed,
// and looked for, by its first MaxTermBytes bytes (cut at a rune).
const MaxTermBytes = 128

// MaxRecordTermBytes bounds the distinct terms of one record (each counted
// as its length plus one): a 4 MiB record of distinct words is indexed by
// its first words up to this, which keeps PostgreSQL's tsvector far from
// its 1 MB limit, and both backends hold the same terms.
const MaxRecordTermBytes = 256 << 10

// Word is one word of a text as the tokenizer reads it: its term (lower
// case, cut to MaxTermBytes) and where it stands in the text.
type Word struct {
	Term       string
	Start, End int // byte offsets of the word in the text
}

// weak connectors join the parts of a name (a.b, ord-55821, snake_case,
// c++); strong ones join names (an e-mail's @, a path's /, a URL's ? and
// =). A word holding either is also indexed by its parts.
var joiners = [utf8.RuneSelf]uint8{
	'.': weakJoin, '-': weakJoin, '_': weakJoin, '+': weakJoin,
	'@': strongJoin, '/': strongJoin, ':': strongJoin, '\\': strongJoin, '~': strongJoin,
	'%': strongJoin, '#': strongJoin, '=': strongJoin, '?': strongJoin, '&': strongJoin,
}

const (
	weakJoin = 1 + iota
	strongJoin
)

func connector(r rune) bool { return r < utf8.RuneSelf && joiners[r] != 0 }

// wordRune is a letter, digit or mark: what words are made of.
func wordRune(r rune) bool {
	if r < utf8.RuneSelf { // the common case, without the tables
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// single reports a rune written without spaces between words (Han, kana):
// each is a word of its own, and a phrase of them finds a longer word.
func single(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

// Words calls fn for each word of text in order: a run of letters, digits
// and marks, with connectors between them (ORD-55821, a.b@c.com,
// /usr/local/bin without its leading /).
func Words(text string, fn func(Word)) {
	start := -1 // start of the run, -1 outside one
	lastWord := -1
	emit := func() {
		if start >= 0 && lastWord > start {
			fn(Word{Term: normalize(text[start:lastWord]), Start: start, End: lastWord})
		}
		start, lastWord = -1, -1
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case wordRune(r) && !single(r):
			if start < 0 {
				start = i
			}
			lastWord = i + size
		case connector(r):
			// a run starts with a word rune: leading connectors go
		case single(r):
			emit()
			fn(Word{Term: text[i : i+size], Start: i, End: i + size})
		default:
			emit()
		}
		i += size
	}
	emit()
}

// normalize lower-cases a word and cuts it to MaxTermBytes at a rune.
func normalize(w string) string {
	w = strings.ToLower(w)
	if len(w) > MaxTermBytes {
		cut := MaxTermBytes
		for cut > 0 && !utf8.RuneStart(w[cut]) {
			cut--
		}
		w = w[:cut]
	}
	return w
}

// Parts returns the terms a word is also found by: the names its strong
// connectors join (a.b@c.com: a.b, c.com) and the atoms all connectors
// join (a, b, c, com). A plain word has none.
func Parts(term string, fn func(string)) {
	if strings.IndexFunc(term, connector) < 0 {
		return
	}
	split(term, strongByte, fn)
	split(term, anyByte, fn)
}

func strongByte(c byte) bool { return c < utf8.RuneSelf && joiners[c] == strongJoin }

func anyByte(c byte) bool { return c < utf8.RuneSelf && joiners[c] != 0 }

// split calls fn with each piece of term between bytes at which cut holds,
// its connectors at both ends trimmed, when it is not term itself.
func split(term string, cut func(byte) bool, fn func(string)) {
	from := 0
	for i := 0; i <= len(term); i++ {
		if i < len(term) && !cut(term[i]) {
			continue
		}
		p := strings.TrimFunc(term[from:i], connector)
		if p != "" && p != term {
			fn(p)
		}
		from = i + 1
	}
}

// Terms returns the distinct terms text is indexed by: every word whole and
// its parts, in the order first seen, up to MaxRecordTermBytes. Stores
// hold what it made: SQLite deletes an index entry by the terms its record
// makes again, so a change to them comes with a migration that indexes
// every record again (TestTermsAreStored).
func Terms(text string) []string {
	var t Termer
	return t.Terms(text)
}

// Termer makes the terms of one text after another, reusing its memory: a
// writer indexing thousands of records keeps one.
type Termer struct{ t termSet }

// Terms is the package's Terms; the slice is valid until the next call.
func (tr *Termer) Terms(text string) []string {
	t := &tr.t
	if t.seen == nil {
		t.seen = make(map[string]struct{}, 64)
	}
	clear(t.seen)
	t.list, t.bytes = t.list[:0], 0
	Words(text, func(w Word) {
		t.add(w.Term)
		if strings.IndexFunc(w.Term, connector) >= 0 {
			Parts(w.Term, t.add)
		}
	})
	return t.list
}

type termSet struct {
	seen  map[string]struct{}
	list  []string
	bytes int
}

func (t *termSet) add(term string) {
	if _, ok := t.seen[term]; ok || t.bytes+len(term)+1 > MaxRecordTermBytes {
		return
	}
	t.seen[term] = struct{}{}
	t.list = append(t.list, term)
	t.bytes += len(term) + 1
}
