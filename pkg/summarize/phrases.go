package summarize

import (
	"slices"
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
	// firstPerson: the words before it include I, we, my...: the speaker
	// tells something about themselves, where most facts worth keeping are.
	firstPerson bool
	// initial: it starts a sentence, so a capital on its first word may say
	// nothing about the word.
	initial bool
	// listed: only a comma parts it from the phrase before, as the items
	// of a list are ("croissants, muffins, and tarts").
	listed bool
}

// splitPhrases returns the phrases of text in order, a list of short
// items as one phrase (see joinLists).
func splitPhrases(text string) []phrase {
	return joinLists(scanPhrases(text))
}

// scanPhrases returns the phrases of text in order, each item of a list
// on its own.
func scanPhrases(text string) []phrase {
	var s phraseSplitter
	// First room for the run of words and a field's tokens, seldom
	// outgrown, and for folded words, which are only looked up.
	var runBuf [16]string
	var tokenBuf [8]token
	run, tokens := runBuf[:0], tokenBuf[:0]
	var foldBuf, stemBuf, beforeBuf [32]byte
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
		sentenceStart := true
		// before: the word before, folded, if no mark but a comma came
		// since. After a greeting or "you" ("Hey", "Thanks,", "you,"), a
		// name alone is a form of address.
		before := beforeBuf[:0]
		// quoted: inside double quotes, which hold a title or a saying
		// whole ("Monster Hunter: World", "Bring it on Home"), up to
		// maxQuotedWords.
		quoted := false
		for field, next := range fieldsAhead(line) {
			tokens = appendFieldTokens(tokens[:0], field, startsUpper(next))
			for k, tok := range tokens {
				if !tok.word {
					if emphasis(tok.text) {
						continue // **bold** and _italic_ words read on
					}
					switch {
					case quoted && !strings.ContainsAny(tok.text, quoteMarks) && len(run) < maxQuotedWords:
						continue
					case quoted:
						quoted = false
					case k == 0 && k+1 < len(tokens) && strings.ContainsAny(tok.text, quoteMarks):
						quoted = true
					}
					// A title's closing quote before its author ("Brave"
					// by Sara Bareilles) parts nothing; a title has a capital.
					if k == len(tokens)-1 && next == "by" && closingQuote(tok.text) && slices.ContainsFunc(run, startsUpper) {
						continue
					}
					emitted := len(s.out)
					run = s.flush(run, true)
					s.linked = tok.text == "," && len(s.out) > emitted
					if tok.text != "," {
						before = before[:0]
					}
					if strings.ContainsAny(tok.text, ".!?:") {
						sentenceStart = true
					}
					continue
				}
				lw := foldAppend(foldBuf[:0], tok.text)
				// The stem is the folded word but for an apostrophe.
				st, sameStem := lw, true
				if strings.IndexByte(tok.text, '\'') >= 0 || strings.Contains(tok.text, "’") {
					st, sameStem = stemAppend(stemBuf[:0], tok.text), false
				}
				// A capital inside a sentence makes a break word part of a
				// name or title: "The Great Gatsby", "7 May 2023". "I" is
				// always capitalized and always a pronoun.
				titled := !sentenceStart && startsUpper(tok.text) && string(st) != "i"
				if quoted && len(run) >= maxQuotedWords {
					quoted = false
				}
				if !titled && !quoted && (breakWords[string(lw)] || !sameStem && breakWords[string(st)]) {
					if len(run) > 0 {
						run = s.flush(run, false)
					}
					s.linked = false
					before = append(before[:0], lw...)
					if firstPersonWords[string(lw)] || !sameStem && firstPersonWords[string(st)] {
						s.firstPerson = true
					}
					sentenceStart = false
					continue
				}
				if len(run) == 0 {
					s.initial = sentenceStart
					s.addressed = greetings[string(before)] || string(before) == "you"
					s.listed = s.linked
				}
				run = append(run, tok.text)
				before = append(before[:0], lw...)
				sentenceStart = false
			}
		}
		run = s.flush(run, true)
		s.linked = false
	}
	return s.out
}

// phraseSplitter is splitPhrases' state: the phrases so far, and what
// is known of the run of words that may become the next.
type phraseSplitter struct {
	out []phrase
	// firstPerson, initial, listed: as the phrase's fields say.
	// addressed: the run follows a greeting ("Hey", "Thanks,", "you,"),
	// so a name alone in it is a form of address. linked: the last mark
	// was a comma that ended a phrase.
	firstPerson, initial, listed, addressed, linked bool
}

// flush ends the run and returns it emptied; ended: at a stop, comma or
// line end, where a form of address ends ("Hey Mel!"), not at a word.
func (s *phraseSplitter) flush(run []string, ended bool) []string {
	words := run
	for len(words) > 0 && isStopword(words[len(words)-1]) && !startsUpper(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	if hasContent(words) && !smallTalk(words, s.addressed && ended) {
		s.out = append(s.out, phrase{text: strings.Join(words, " "), firstPerson: s.firstPerson, initial: s.initial, listed: s.listed})
	}
	s.firstPerson = false
	return run[:0]
}

// smallTalk reports whether a run of words says nothing a summary needs:
// a lone filler ("Sweet!", "Perfect.") or, addressed, a name alone, which
// is the person spoken to ("Hey Mel!", "Thanks, Caroline."); after an
// interjection a name alone is addressed too ("Yep Deb!", "Aww Mel.").
func smallTalk(run []string, addressed bool) bool {
	if len(run) > 0 {
		var buf [32]byte
		first := foldAppend(buf[:0], run[0])
		if len(run) == 1 && fillers[string(first)] {
			return true
		}
		if interjections[string(first)] {
			run, addressed = run[1:], true
		}
	}
	if !addressed || len(run) > 2 {
		return false
	}
	for _, w := range run {
		if !startsUpper(w) {
			return false
		}
	}
	return true
}

type token struct {
	text string
	word bool // else punctuation, which ends a phrase
}

// fieldsAhead yields the whitespace-delimited fields of s, each with the
// field after it ("" after the last).
func fieldsAhead(s string) func(yield func(field, next string) bool) {
	return func(yield func(field, next string) bool) {
		prev, started := "", false
		for f := range strings.FieldsSeq(s) {
			if started && !yield(prev, f) {
				return
			}
			prev, started = f, true
		}
		if started {
			yield(prev, "")
		}
	}
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

// quoteMarks open and close a quoted span; maxQuotedWords bounds what of
// it is held as one phrase (a quote left open ends there).
const (
	quoteMarks     = `"“”`
	maxQuotedWords = 12
)

// closingQuote: the marks that close a quoted title.
func closingQuote(mark string) bool {
	return mark == `"` || mark == "”" || mark == "'" || mark == "’"
}

// abbreviation reports whether a word followed by a dot and a capital is
// a title or initials, whose dot ends no sentence ("Dr. Dre", "J.K.
// Rowling", "St. Louis"): a title of the list, or single capitals joined
// by dots but the pronoun I.
func abbreviation(w string) bool {
	if titleAbbreviations[w] {
		return true
	}
	if w == "I" {
		return false
	}
	for i := 0; i < len(w); i += 2 {
		if !isUpper(w[i]) || i+1 < len(w) && w[i+1] != '.' {
			return false
		}
	}
	return len(w)%2 == 1
}

var titleAbbreviations = wordSet(`Mr Mrs Ms Mx Dr Prof St Mt Ft Rev Gen Capt Lt Sgt Col`)

// appendFieldTokens appends the words and punctuation of one
// whitespace-delimited field. URLs, e-mail addresses, paths, identifiers
// and version numbers stay whole; so does the dot of an abbreviation
// when the next field starts with a capital (nextUpper).
func appendFieldTokens(out []token, field string, nextUpper bool) []token {
	if lead, code, trail, ok := codeField(field); ok {
		return appendMarkedWord(out, lead, code, trail)
	}
	if lead, word, trail, ok := plainField(field); ok {
		if trail == "." && nextUpper && abbreviation(word) {
			word, trail = field[len(lead):], ""
		}
		return appendMarkedWord(out, lead, word, trail)
	}
	core := strings.TrimLeftFunc(field, isEdgePunct)
	trimmed := strings.TrimRightFunc(core, isEdgePunct)
	if last, _ := utf8.DecodeLastRuneInString(trimmed); isAlnum(last) {
		trimmed = core[:plusEnd(core, len(trimmed))]
	}
	if lead := field[:len(field)-len(core)]; lead != "" {
		out = append(out, token{text: lead})
	}
	abbreviated := core[len(trimmed):] == "." && nextUpper && abbreviation(trimmed)
	if abbreviated {
		trimmed = core
	}
	switch {
	case trimmed == "":
	case abbreviated || atomic(trimmed):
		out = append(out, token{text: trimmed, word: true})
	default:
		start := -1
		for i, r := range trimmed {
			if isWordRune(trimmed, i, r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				out = append(out, token{text: trimmed[start:i], word: true})
				start = -1
			}
			// The rune as the text has it: punctuation is only compared
			// with ASCII marks, where an invalid byte and U+FFFD agree.
			_, w := utf8.DecodeRuneInString(trimmed[i:])
			out = append(out, token{text: trimmed[i : i+w]})
		}
		if start >= 0 {
			out = append(out, token{text: trimmed[start:], word: true})
		}
	}
	if trail := core[len(trimmed):]; trail != "" {
		out = append(out, token{text: trail})
	}
	return out
}

// appendMarkedWord appends a word and the marks before and after it
// (either may be empty).
func appendMarkedWord(out []token, lead, word, trail string) []token {
	if lead != "" {
		out = append(out, token{text: lead})
	}
	out = append(out, token{text: word, word: true})
	if trail != "" {
		out = append(out, token{text: trail})
	}
	return out
}

// codeField splits a field that is inline code ("(`timeout=10`),") into
// the marks before it, the code, whole, and the marks after it; the
// backticks, like emphasis, part no words. ok is false for any other
// field, and for code without a letter or digit.
func codeField(field string) (lead, code, trail string, ok bool) {
	i := strings.IndexByte(field, '`')
	if i < 0 {
		return "", "", "", false
	}
	j := strings.LastIndexByte(field, '`')
	if j <= i+1 || strings.IndexByte(field[i+1:j], '`') >= 0 ||
		strings.TrimLeftFunc(field[:i], isEdgePunct) != "" || strings.TrimLeftFunc(field[j+1:], isEdgePunct) != "" ||
		!strings.ContainsFunc(field[i+1:j], isAlnum) {
		return "", "", "", false
	}
	return field[:i], field[i+1 : j], field[j+1:], true
}

// plainField splits the most common field, ASCII letters and digits
// between marks ("(great!)"), into what appendFieldTokens would: a word
// between its marks. ok is false for any other field.
func plainField(field string) (lead, word, trail string, ok bool) {
	edge := func(c byte) bool {
		return c < utf8.RuneSelf && !isAlnumByte(c) && c != '$' && c != '#' && c != '@' && c != '/'
	}
	i := run(field, 0, edge)
	j := alnumRun(field, i)
	if j > i {
		j = plusEnd(field, j)
	}
	if j == i || run(field, j, edge) != len(field) {
		return "", "", "", false
	}
	return field[:i], field[i:j], field[j:], true
}

// isWordRune: letters and digits, an apostrophe, hyphen or colon joining
// two of them ("Caroline's", "sci-fi", "08:40", "CS:GO"), a comma joining
// two digits ("1,000").
func isWordRune(s string, i int, r rune) bool {
	if r < utf8.RuneSelf && isAlnumByte(byte(r)) || unicode.IsLetter(r) || unicode.IsDigit(r) {
		return true
	}
	if i == 0 {
		return false
	}
	// The width comes from the text, not from r: an invalid byte is one
	// byte wide while utf8.RuneLen(RuneError) is three.
	_, width := utf8.DecodeRuneInString(s[i:])
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+width:])
	switch r {
	case '\'', '’', '-':
		return (unicode.IsLetter(before) || unicode.IsDigit(before)) && (unicode.IsLetter(after) || unicode.IsDigit(after))
	case ':':
		return isAlnum(before) && isAlnum(after) // 08:40, CS:GO
	case ',':
		return unicode.IsDigit(before) && unicode.IsDigit(after) // 1,000
	case '+':
		return (isAlnum(before) || before == '+') && plusEnd(s, i) > i // C++, LGBTQ+
	}
	return false
}

// plusEnd is the end of the '+' signs at i that close a word ("C++",
// "LGBTQ+", "Disney+"), i when there are none or a letter or digit
// follows them ("a+b" is a sum).
func plusEnd(s string, i int) int {
	j := i
	for j < len(s) && s[j] == '+' {
		j++
	}
	if r, _ := utf8.DecodeRuneInString(s[j:]); j < len(s) && isAlnum(r) {
		return i
	}
	return j
}

func isEdgePunct(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '$' && r != '€' && r != '£' && r != '#' && r != '@' && r != '/'
}

// atomic reports whether a field is kept as one word: it holds a letter
// or digit and "://", "@", "_", "/", a dot inside it ("main.go", "3.5"),
// a camelCase joint or a sign of money or number; in one pass.
func atomic(s string) bool {
	alnum, joined, camel, money, prevLower := false, false, false, false, false
	for _, r := range s {
		switch r {
		case '@', '_', '/', '\\', '`': // "://" holds a '/'
			joined = true
		case '$', '€', '£', '#':
			money = true
		}
		upper, lower := unicode.IsUpper(r), unicode.IsLower(r)
		if prevLower && upper {
			camel = true
		}
		prevLower = lower
		if !alnum {
			alnum = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
	}
	switch {
	case !alnum:
		return false // "##", "--": punctuation
	case joined || camel:
		return true
	}
	if i := strings.IndexByte(s, '.'); i > 0 && i < len(s)-1 {
		return true
	}
	return money
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

var firstPersonWords = wordSet(`i we my our me us ive weve im myself ours mine id`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
