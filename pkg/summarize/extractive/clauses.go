package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/summarize/internal/work"
)

// speakerRE is a speaker's label at the start of a line: up to three
// capitalized words, then ": ".
var speakerRE = work.LazyRegexp(`^\s*\p{Lu}[\p{L}\p{N}_.-]*(?: \p{Lu}[\p{L}\p{N}_.-]*){0,2}: `)

// A clause is what the extractive summarizer keeps: a whole sentence, or a
// part of one between the boundaries doc.go lists, verbatim, so that it
// keeps its subject, its negation and its modal ("The backup server is not
// the one we use for exports" stays whole).
type clause struct {
	text string
}

// splitClauses returns the clauses of text in order: those that hold a
// content word. A fenced code block makes none (its identifiers reach the
// ledger).
func splitClauses(text string) []clause {
	var out []clause
	inCode := false
	for line := range strings.SplitSeq(text, "\n") {
		if codeFence(line) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		// A speaker's label opening a line ("Caroline: …", as chat
		// exports write them) says who speaks, not what: no clause.
		if i := strings.Index(line, ": "); i > 0 && i < 64 {
			if m := speakerRE().FindStringIndex(line); m != nil {
				line = line[m[1]:]
			}
		}
		fields := strings.Fields(line)
		for _, sp := range sentenceSpans(fields) {
			for _, c := range sentenceClauses(fields[sp[0]:sp[1]]) {
				if contentIn(c) {
					out = append(out, clause{text: c})
				}
			}
		}
	}
	return out
}

// sentenceSpans cuts a line's fields into sentences, as ranges: a
// sentence ends at ".", "!", "?" and "…" before a space or the line's end;
// a stop inside a word ("v1.2", "main.go") ends nothing, nor does one after
// an abbreviation ("e.g.", "Dr.") or a lone initial.
func sentenceSpans(fields []string) [][2]int {
	var out [][2]int
	start := 0
	for i, f := range fields {
		if endsSentence(f) && !abbreviation(f) {
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	if start < len(fields) {
		out = append(out, [2]int{start, len(fields)})
	}
	return out
}

// endsSentence reports whether a field closes a sentence: it ends in a
// stop, perhaps inside closing quotes or brackets.
func endsSentence(f string) bool {
	f = strings.TrimRight(f, `"')]”’*_`)
	return strings.HasSuffix(f, ".") || strings.HasSuffix(f, "!") || strings.HasSuffix(f, "?") || strings.HasSuffix(f, "…")
}

// abbreviation reports whether a field ending in "." is an abbreviation or
// an initial, whose dot ends no sentence.
func abbreviation(f string) bool {
	if !strings.HasSuffix(f, ".") {
		return false
	}
	w := strings.TrimLeft(strings.TrimSuffix(f, "."), `"'(“‘`)
	if n := utf8.RuneCountInString(w); n == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsUpper(r) // "J. Smith"; "vitamin D. Then" is read as an initial too
	}
	return abbreviations[strings.ToLower(w)] || strings.Contains(w, ".") && !strings.ContainsFunc(w, unicode.IsDigit) && len(w) <= 5 // "e.g", "U.S"
}

var abbreviations = wordSet(`mr mrs ms dr prof st jr sr vs etc approx incl esp fig no nos vol dept est inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun`)

// sentenceClauses cuts one sentence at the boundaries of doc.go and joins
// back what a negation governs.
func sentenceClauses(fields []string) []string {
	if len(fields) == 0 {
		return nil
	}
	// parts are the clauses as ranges of fields; a boundary's mark (a
	// dash, a semicolon) ends the range before it, so that a clause
	// joined back reads as the text did.
	var parts [][2]int
	start := 0
	cut := func(end int) {
		if end > start {
			parts = append(parts, [2]int{start, end})
		}
		start = end
	}
	// dependent: a subordinate or relative clause opened since start, whose
	// conjunction may join two parts of it ("the point where anyone else
	// would quit and you're not going to stop"): no cut at it.
	dependent := false
	// code: a code span (`…`) is open; nothing inside one is a boundary,
	// as it quotes a command or a message verbatim.
	code := false
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Count(f, "`")%2 == 1 {
			code = !code
		}
		if code { // a word that opens a span or stands inside one
			continue
		}
		switch {
		case dash(f):
			cut(i + 1)
			dependent = false
		case strings.HasSuffix(f, ";") || strings.HasSuffix(f, ":") && i+1 < len(fields) && !strings.HasSuffix(f, "::"):
			cut(i + 1)
			dependent = false
		case i > start && !dependent && isCoordinator(f) && joinsClauses(fields, i):
			cut(i)
		case len(f) <= 9 && opensDependent(f):
			dependent = true
		}
	}
	cut(len(fields))
	// Join what a negation or a condition governs: a negated frame, or a
	// condition or time clause opening the sentence ("If the refund has
	// not arrived, reply and we will open a trace"), takes the whole
	// sentence; "nor", "neither", "not" go with the clause before; so does
	// a part with no verb of its own after a negated clause.
	if len(parts) > 1 && (negatedFrame(fields[parts[0][0]:parts[0][1]]) || inFolded(subordinators, trimOpening(fields[0]))) {
		parts = [][2]int{{0, len(fields)}}
	}
	var out [][2]int
	for _, p := range parts {
		if n := len(out); n > 0 {
			words := fields[p[0]:p[1]]
			first := foldWord(trimOpening(words[0]))
			if (first == "and" || first == "or" || first == "but") && len(words) > 1 {
				first = foldWord(trimOpening(words[1]))
			}
			if first == "nor" || first == "neither" || first == "not" || negated(fields[out[n-1][0]:out[n-1][1]]) && !hasVerb(words) {
				out[n-1][1] = p[1]
				continue
			}
		}
		out = append(out, p)
	}
	texts := make([]string, 0, len(out))
	for _, p := range out {
		if t := clauseText(fields[p[0]:p[1]]); t != "" {
			texts = append(texts, t)
		}
	}
	return texts
}

// clauseText is a clause's words, less the marks that only part it from
// the next (a comma, a semicolon, a colon, a full stop; a question or
// exclamation mark stays: it says what kind of sentence it was) and a
// list's bullet.
func clauseText(words []string) string {
	if len(words) > 0 && (words[0] == "-" || words[0] == "*" || words[0] == "•" || words[0] == ">") {
		words = words[1:]
	}
	if len(words) > 0 && dash(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	t := strings.Join(words, " ")
	for {
		u := strings.TrimRight(t, ",;: ")
		if strings.HasSuffix(u, ".") && !strings.HasSuffix(u, "..") {
			last := u[strings.LastIndexByte(u, ' ')+1:]
			if !abbreviation(last) {
				u = strings.TrimRight(strings.TrimSuffix(u, "."), " ")
			}
		}
		if u == t {
			return t
		}
		t = u
	}
}

// dash reports whether a field is a dash between spaces.
func dash(f string) bool { return f == "-" || f == "–" || f == "—" || f == "--" }

var coordinators = wordSet(`and but or so yet`)

// isCoordinator reports whether a field is a coordinating conjunction,
// any case, without folding every field of a text.
func isCoordinator(f string) bool {
	switch len(f) {
	case 2, 3:
		return strings.EqualFold(f, "and") || strings.EqualFold(f, "but") || strings.EqualFold(f, "or") ||
			strings.EqualFold(f, "so") || strings.EqualFold(f, "yet")
	}
	return false
}

// subordinators open a condition or time clause, which governs every
// clause of its sentence when it opens it.
var subordinators = wordSet(`if unless until when whenever because although though while since after before once whereas`)

// relatives open a relative clause.
var relatives = wordSet(`where which who whom whose`)

// joinsClauses reports whether the coordinator at fields[i] joins two
// clauses: a subject pronoun follows it, or a comma precedes it and what
// follows up to the next boundary has a verb of its own. "salt and
// pepper" and "the gate, and the roof" are one clause.
func joinsClauses(fields []string, i int) bool {
	if i+1 >= len(fields) {
		return false
	}
	if inStem(subjects, fields[i+1]) {
		return true
	}
	if !strings.HasSuffix(fields[i-1], ",") {
		return false
	}
	var rest []string
	for _, f := range fields[i+1:] {
		if dash(f) || isCoordinator(f) {
			break
		}
		rest = append(rest, f)
		if strings.HasSuffix(f, ";") || strings.HasSuffix(f, ":") {
			break
		}
	}
	return hasVerb(rest)
}

// subjects are the pronouns that open a clause of their own.
var subjects = wordSet(`i we you he she it they there`)

// hasVerb reports whether words hold a verb of their own, by the words
// English marks one with: a subject pronoun, an auxiliary or a modal, or a
// contraction of one ("it's", "we'll").
func hasVerb(words []string) bool {
	for _, w := range words {
		if inStem(subjects, w) || inFolded(auxiliaries, trimMarks(w)) || inStem(auxiliaries, w) {
			return true
		}
		if i := strings.IndexAny(w, "'’"); i > 0 && i < len(w)-1 {
			return true // a contraction holds a verb: "it's", "don't"
		}
	}
	return false
}

var auxiliaries = wordSet(`am is are was were be been being have has had do does did will would can could should shall
	might must may cannot dont doesnt didnt isnt arent wasnt werent wont cant couldnt shouldnt wouldnt hasnt havent hadnt`)

// inStem reports whether a word's part before an apostrophe, lower-cased
// and less the marks around it, is in set: "It's" is "it". Like inFolded,
// it looks up without allocating: the cutter reads every word of a span.
func inStem(set map[string]bool, w string) bool {
	var buf [32]byte
	return set[string(stemAppend(buf[:0], trimMarks(w)))]
}

// inFolded reports whether foldWord(w) is in set.
func inFolded(set map[string]bool, w string) bool {
	var buf [32]byte
	return set[string(foldAppend(buf[:0], w))]
}

// opensDependent reports whether a word opens a subordinate or relative
// clause.
func opensDependent(f string) bool {
	// Most words open nothing, and their first letter says so: the
	// cutter reads every word of a span.
	if f == "" || f[0] < utf8.RuneSelf && isLetter(f[0]) && !dependentInitial[f[0]] {
		return false
	}
	w := trimOpening(f)
	return inFolded(subordinators, w) || inFolded(relatives, w)
}

// dependentInitial holds the first letters of subordinators and relatives.
var dependentInitial = func() (t [256]bool) {
	for w := range subordinators {
		t[w[0]], t[w[0]-'a'+'A'] = true, true
	}
	for w := range relatives {
		t[w[0]], t[w[0]-'a'+'A'] = true, true
	}
	return t
}()

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// trimMarks is a word less the punctuation and quotes around it.
func trimMarks(w string) string {
	return strings.TrimFunc(w, func(r rune) bool {
		switch r {
		case ',', '.', ';', ':', '!', '?', '"', '\'', '“', '”', '‘', '’', '*', '_', '(', ')':
			return true
		}
		return false
	})
}

// trimOpening is a word less the commas, quotes, emphasis and opening
// parenthesis around it; a closing stop stays ("if." ends a sentence).
func trimOpening(w string) string {
	return strings.TrimFunc(w, func(r rune) bool {
		switch r {
		case ',', '"', '\'', '“', '”', '‘', '’', '*', '_', '(':
			return true
		}
		return false
	})
}

// negationCues are the words that negate their clause (English); a word
// ending in "n't" negates too.
var negationCues = wordSet(`not no never none nobody nothing nowhere neither nor without cannot`)

// isNegation reports whether a word is a negation cue.
func isNegation(w string) bool {
	w = trimMarks(w)
	lw := strings.ToLower(w)
	return negationCues[lw] || strings.HasSuffix(lw, "n't") || strings.HasSuffix(lw, "n’t")
}

// negated reports whether words hold a negation cue ("no one" holds "no").
func negated(words []string) bool {
	for _, w := range words {
		if isNegation(w) {
			return true
		}
	}
	return false
}

// negatedFrame reports whether a clause opens with a negated frame, which
// governs all that follows it: "I don't think", "it's not that", "I doubt".
func negatedFrame(words []string) bool {
	var b strings.Builder
	for i, w := range words[:min(len(words), 6)] {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.ToLower(strings.ReplaceAll(strings.Trim(w, `,.;:!?"“”*_()`), "’", "'")))
	}
	s := b.String()
	for _, f := range negatedFrames {
		if strings.HasPrefix(s, f) {
			return true
		}
	}
	return false
}

var negatedFrames = []string{"i don't think", "i do not think", "i don't believe", "i do not believe",
	"i'm not sure", "i am not sure", "it's not that", "it is not that", "it's not true", "it is not true",
	"i doubt", "i don't know", "i do not know", "i never said", "i didn't say", "i did not say"}

// contentIn reports whether a clause holds a content word, reading its
// words only up to the first.
func contentIn(text string) bool {
	for w := range noteWords(text) {
		if isContent(w) {
			return true
		}
	}
	return false
}

// wordsOf are the words of a clause as notes count them.
func wordsOf(text string) []string {
	var out []string
	for w := range noteWords(text) {
		out = append(out, w)
	}
	return out
}
