package domains

// The eval's own reading of the clause rule of
// pkg/summarize/extractive/doc.go (and of the cue lists and scope rules
// of ../shared/reference/clauses-and-negation.md), written apart from the
// engine's code so that `make eval` measures the engine instead of
// repeating it: where a sentence ends, where a clause ends, which clauses
// are joined, which words negate. NoteCheck then says of one note, found
// verbatim in its source text, whether it is a whole clause and which
// negation cues of its clause (or of a clause it depends on) it lacks.

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a part of a text, by byte offsets.
type span struct{ start, end int }

// clauseSpan is a clause of a sentence; first is set on a sentence's first
// clause.
type clauseSpan struct {
	span
	first bool
}

// abbrevs are words whose trailing stop does not end a sentence.
var abbrevs = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true, "vs": true}

// initials matches a word of single letters and stops ("e.g", "i.e",
// "a.m"), whose trailing stop does not end a sentence.
var initials = regexp.MustCompile(`^(\p{L}\.)+\p{L}$`)

// Sentences parts text at ".", "!" or "?" (a run of them, and any closing
// quotes or brackets after) before a space or the end of the text, and at
// every line break; a stop inside a word ("v1.2", "3.5", "a@b.com") or
// after an abbreviation ("e.g.", "Dr.") ends none. Spans are trimmed of
// spaces; empty ones are left out.
func Sentences(text string) []span {
	var out []span
	start := 0
	add := func(end int) {
		s, e := start, end
		for s < e && isSpace(text[s]) {
			s++
		}
		for e > s && isSpace(text[e-1]) {
			e--
		}
		if e > s {
			out = append(out, span{s, e})
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\n' {
			add(i)
			start = i + 1
			continue
		}
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i
		for j < len(text) && (text[j] == '.' || text[j] == '!' || text[j] == '?') {
			j++
		}
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !strings.ContainsRune(`"')]”’»`, r) {
				break
			}
			j += n
		}
		if j < len(text) && !isSpace(text[j]) {
			i = j - 1
			continue
		}
		if c == '.' && j == i+1 && abbreviation(text[start:i]) {
			continue
		}
		add(j)
		start = j
		i = j - 1
	}
	add(len(text))
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// abbreviation reports whether the word that ends before, lower-cased,
// is one whose stop ends no sentence.
func abbreviation(before string) bool {
	k := strings.LastIndexFunc(before, unicode.IsSpace)
	w := strings.TrimLeft(before[k+1:], `("'“‘`)
	return abbrevs[strings.ToLower(w)] || initials.MatchString(w)
}

// word is a word of a text with its place.
type word struct {
	span
	lower string
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+(?:['’][\p{L}]+)*`)

func words(text string, s span) []word {
	var out []word
	for _, m := range wordRE.FindAllStringIndex(text[s.start:s.end], -1) {
		w := word{span{s.start + m[0], s.start + m[1]}, ""}
		w.lower = strings.ToLower(strings.ReplaceAll(text[w.start:w.end], "’", "'"))
		out = append(out, w)
	}
	return out
}

var (
	coordinators = map[string]bool{"and": true, "but": true, "or": true, "so": true, "yet": true}
	subjects     = map[string]bool{"i": true, "we": true, "you": true, "he": true, "she": true, "it": true, "they": true, "there": true}
	// subordinators open a condition or time clause: one at the start of
	// a sentence governs the main clauses after it.
	subordinators = map[string]bool{"if": true, "unless": true, "until": true, "when": true, "whenever": true, "because": true,
		"although": true, "though": true, "before": true, "after": true, "since": true, "while": true, "once": true}
	// negatedFrame opens a sentence whose every clause it governs.
	negatedFrame = regexp.MustCompile(`(?i)^(?:i|we)\s+(?:don't|do not|didn't|did not|don’t|didn’t)\s+(?:think|believe|suppose|expect|reckon|feel)\b|^it(?:'s|’s| is| was)\s+not\s+(?:true\s+)?that\b|^i\s+doubt\b`)
	// verbish are words that give a clause a verb of its own: auxiliaries,
	// modals and common verbs.
	verbish = func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(`is are was were be been being am do does did have has had will would can could should must may might shall
			go goes went get gets got make makes made take takes took want wants need needs like likes know knows think thinks see sees saw
			use uses used say says said tell tells told give gives gave come comes came keep keeps kept let lets try tries work works
			send sends sent call calls called pay pays paid arrive arrives arrived seem seems look looks find finds found eat eats ate`) {
			m[w] = true
		}
		return m
	}()
)

// hasVerb is the eval's guess that a clause has a verb of its own: more
// than four words (a clause without a verb after a negated one is a short
// noun phrase, "or fish"), a subject pronoun, an auxiliary, a modal, a
// common verb, a contraction, or a word in -ed.
func hasVerb(ws []word) bool {
	if len(ws) > 4 {
		return true
	}
	for _, w := range ws {
		if subjects[w.lower] || verbish[w.lower] || strings.Contains(w.lower, "'") || len(w.lower) > 3 && strings.HasSuffix(w.lower, "ed") {
			return true
		}
	}
	return false
}

// Clauses parts one sentence (s, a span of text) at the boundaries of
// the clause rule: ";"; ":" before a space; a dash between spaces; a
// coordinating conjunction (and, but, or, so, yet; "so that" aside) after
// a comma or before a subject pronoun, the clause after it starting at the
// conjunction. Then it joins: the whole sentence when it opens with a
// negated frame ("I don't think", "it's not true that", "I doubt"); a
// clause that opens with "nor", "neither" or "not" to the one before; a
// clause with no verb of its own to a negated clause before it.
func Clauses(text string, s span) []clauseSpan {
	sentence := text[s.start:s.end]
	if negatedFrame.MatchString(sentence) {
		return []clauseSpan{{s, true}}
	}
	cuts := []span{} // each boundary: the text between two clauses
	for i := 0; i < len(sentence); i++ {
		switch c := sentence[i]; {
		case c == ';':
			cuts = append(cuts, span{s.start + i, s.start + i + 1})
		case c == ':' && i+1 < len(sentence) && sentence[i+1] == ' ':
			cuts = append(cuts, span{s.start + i, s.start + i + 1})
		case c == ' ':
			for _, d := range []string{" - ", " – ", " — "} {
				if strings.HasPrefix(sentence[i:], d) {
					cuts = append(cuts, span{s.start + i, s.start + i + len(d)})
				}
			}
		}
	}
	ws := words(text, s)
	for k, w := range ws {
		if k == 0 || !coordinators[w.lower] || k+1 == len(ws) {
			continue
		}
		if w.lower == "so" && ws[k+1].lower == "that" {
			continue
		}
		between := text[ws[k-1].end:w.start]
		// "it's", "we'll": a subject pronoun in a contraction is one too.
		next, _, _ := strings.Cut(strings.ReplaceAll(ws[k+1].lower, "’", "'"), "'")
		if strings.Contains(between, ",") || subjects[next] {
			cuts = append(cuts, span{w.start, w.start}) // the clause starts at the conjunction
		}
	}
	sortSpans(cuts)
	var out []clauseSpan
	start := s.start
	for _, c := range cuts {
		if c.start < start {
			continue
		}
		out = append(out, clauseSpan{span{start, c.start}, len(out) == 0})
		start = c.end
	}
	out = append(out, clauseSpan{span{start, s.end}, len(out) == 0})
	// Trim and drop clauses of no words.
	kept := out[:0]
	for _, c := range out {
		for c.start < c.end && !isWordByte(text, c.start) {
			c.start++
		}
		for c.end > c.start && !isWordByteBefore(text, c.end) {
			c.end--
		}
		if c.end > c.start {
			kept = append(kept, c)
		}
	}
	out = kept
	if len(out) > 0 {
		out[0].first = true
	}
	// Joins.
	var joined []clauseSpan
	for _, c := range out {
		cw := words(text, c.span)
		if len(joined) > 0 && len(cw) > 0 {
			prev := &joined[len(joined)-1]
			opener := cw[0].lower
			if coordinators[opener] && len(cw) > 1 {
				opener = cw[1].lower
			}
			if opener == "nor" || opener == "neither" || opener == "not" ||
				!hasVerb(cw) && len(Cues(text, prev.span)) > 0 {
				prev.end = c.end
				continue
			}
		}
		joined = append(joined, c)
	}
	return joined
}

// isWordByte: the text at i starts a letter, digit or an opening mark a
// clause may begin with.
func isWordByte(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return !unicode.IsSpace(r) && !strings.ContainsRune(",;:-–—", r)
}

func isWordByteBefore(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return !unicode.IsSpace(r) && !strings.ContainsRune(",;:-–—", r)
}

func sortSpans(s []span) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].start < s[j-1].start; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// negators are the negation cues of doc.go that are words; "n't" is any
// word ending in it, and "no one" is "no" before "one".
var negators = map[string]bool{"not": true, "no": true, "never": true, "none": true, "nobody": true, "nothing": true,
	"nowhere": true, "neither": true, "nor": true, "without": true, "cannot": true}

// Cue is a negation cue found in a text.
type Cue struct {
	Word       string
	Start, End int
}

// Cues are the negation cues in s of text, less the uses the reference
// says negate nothing: "not only", "if not", "no doubt", "nothing but",
// and "no" as an answer ("No, ...", "no." at the end).
func Cues(text string, s span) []Cue {
	ws := words(text, s)
	var out []Cue
	for k, w := range ws {
		if !negators[w.lower] && !strings.HasSuffix(w.lower, "n't") {
			continue
		}
		next := ""
		if k+1 < len(ws) {
			next = ws[k+1].lower
		}
		prev := ""
		if k > 0 {
			prev = ws[k-1].lower
		}
		switch {
		case w.lower == "not" && next == "only", w.lower == "not" && prev == "if",
			w.lower == "no" && next == "doubt", w.lower == "nothing" && next == "but":
			continue
		case w.lower == "no":
			after := strings.TrimLeft(text[w.end:s.end], " ")
			if after == "" || strings.ContainsAny(after[:1], ",.!?") {
				continue
			}
		}
		out = append(out, Cue{text[w.start:w.end], w.start, w.end})
	}
	return out
}

// NoteCheck reads the note at [start, end) of source, where it was found
// verbatim: whole is true when it starts and ends at clause boundaries
// (anything between a boundary and the note is spaces, punctuation or an
// opening conjunction); lacks are the cues of the clauses it overlaps, or
// of a sentence-opening condition clause ("If ..., ...") that governs
// them, that lie outside the note.
func NoteCheck(source string, start, end int) (whole bool, lacks []Cue) {
	var clauses []clauseSpan
	for _, s := range Sentences(source) {
		if s.end <= start || s.start >= end {
			continue
		}
		cs := Clauses(source, s)
		var over []clauseSpan
		for _, c := range cs {
			if c.end > start && c.start < end {
				over = append(over, c)
			}
		}
		if len(over) == 0 { // the note is only punctuation between clauses
			continue
		}
		if !over[0].first && opensWithSubordinator(source, cs[0].span) {
			over = append([]clauseSpan{cs[0]}, over...)
		}
		clauses = append(clauses, over...)
	}
	if len(clauses) == 0 {
		return false, nil
	}
	for _, c := range clauses {
		for _, q := range Cues(source, c.span) {
			if q.Start < start || q.End > end {
				lacks = append(lacks, q)
			}
		}
	}
	// Whole: the note's first overlapped clause starts at its start (or
	// only a conjunction and marks lie between), and its last ends at its
	// end.
	first, last := clauses[0], clauses[len(clauses)-1]
	for _, c := range clauses { // a governing clause put first is not the note's
		if c.end > start {
			first = c
			break
		}
	}
	return gapOK(source, first.start, start, true) && gapOK(source, end, last.end, false), lacks
}

func opensWithSubordinator(text string, s span) bool {
	ws := words(text, s)
	return len(ws) > 0 && subordinators[ws[0].lower]
}

// gapOK reports whether text[from:to] holds nothing but spaces and
// punctuation (and, if opening, one conjunction): the note starts (ends)
// at the boundary. A note that starts before its clause's start, or ends
// after its end, reaches into another clause: it is whole only if it
// takes that clause whole too, which the span of clauses it overlaps
// already says, so a negative gap is fine.
func gapOK(text string, from, to int, opening bool) bool {
	if from >= to {
		return true
	}
	g := text[from:to]
	if opening {
		ws := words(text, span{from, to})
		if len(ws) == 1 && coordinators[ws[0].lower] {
			g = text[from:ws[0].start] + text[ws[0].end:to]
		}
	}
	return strings.IndexFunc(g, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0
}
