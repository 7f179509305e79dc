package extractive

import (
	"slices"
	"strings"
)

// The extractive summary's text: a heading, then a line per exchange,
// written from the notes kept and read back as the next summary's notes.

// notesHeading opens an extractive summary whose notes name a speaker,
// unnamedNotesHeading one whose notes name none; a previous summary that
// starts with neither nor with an older heading (legacyNotesHeadings) is
// read as prose (an LLM's). The heading is sent with every call that
// carries the summary: each token of it counts as often, so it explains
// names only where there are some.
const (
	notesHeading        = `Earlier, a line per exchange (user → assistant; "Name:" names a speaker):`
	unnamedNotesHeading = `Earlier, a line per exchange (user → assistant):`
	// decisionsHeading opens the notes under an agent session's sections:
	// the exchanges' own words, the tool output being in the sections.
	decisionsHeading        = `Decisions, a line per exchange (user → assistant; "Name:" names a speaker):`
	unnamedDecisionsHeading = `Decisions, a line per exchange (user → assistant):`
)

// legacyNotesHeadings opened the summaries of earlier versions, which are
// still read as notes.
var (
	legacyNotesHeadings = []string{`Earlier, key phrases (a line per exchange: user → assistant; "Name:" marks a named speaker):`}
	allNotesHeadings    = append([]string{notesHeading, unnamedNotesHeading, decisionsHeading, unnamedDecisionsHeading}, legacyNotesHeadings...)
)

// headingFor is the heading of notes that name a speaker (named) or none,
// an agent session's decisions (tools) or a chat's exchanges.
func headingFor(named, tools bool) string {
	switch {
	case tools && named:
		return decisionsHeading
	case tools:
		return unnamedDecisionsHeading
	case named:
		return notesHeading
	}
	return unnamedNotesHeading
}

// cutNotesHeading returns text after its notes heading, of this version
// or an earlier one, and whether it had one.
func cutNotesHeading(text string) (string, bool) {
	for _, h := range allNotesHeadings {
		if rest, ok := strings.CutPrefix(text, h); ok {
			return rest, true
		}
	}
	return text, false
}

const (
	noteSep  = "; "
	replySep = " → "
)

// renderNotes writes the notes: the heading, then one line per turn, the
// user's clauses, an arrow, the replies' clauses.
func renderNotes(notes []note, tools bool) string {
	var b strings.Builder
	b.WriteString(headingFor(slices.ContainsFunc(notes, func(n note) bool { return n.by != "" }), tools))
	for i := 0; i < len(notes); {
		j := i
		for j < len(notes) && notes[j].turn == notes[i].turn {
			j++
		}
		b.WriteByte('\n')
		var user, reply []string
		var userBy, replyBy string
		for _, n := range notes[i:j] {
			side, by := &user, &userBy
			if n.reply {
				side, by = &reply, &replyBy
			}
			text := n.text
			if n.by != *by {
				*by = n.by
				if n.by != "" {
					text = n.by + ": " + text
				}
			}
			*side = append(*side, text)
		}
		b.WriteString(strings.Join(user, noteSep))
		if len(reply) > 0 {
			if len(user) > 0 {
				b.WriteString(replySep)
			} else {
				b.WriteString(strings.TrimLeft(replySep, " "))
			}
			b.WriteString(strings.Join(reply, noteSep))
		}
		i = j
	}
	return b.String()
}

// noteClause is a clause read back from a previous summary, with the
// speaker's name its line gave it.
type noteClause struct{ text, by string }

// previousNotes reads a previous summary back into lines of [user, reply]
// clauses. A summary this summarizer did not write is read as prose: its
// clauses become one line of the user's side, weighed like any other.
func previousNotes(prev string) [][2][]noteClause {
	prev = strings.TrimSpace(prev)
	if prev == "" {
		return nil
	}
	rest, ok := cutNotesHeading(prev)
	if !ok {
		var line [2][]noteClause
		for _, p := range splitClauses(prev) {
			line[0] = append(line[0], noteClause{text: sanitizeNote(p.text)})
		}
		return [][2][]noteClause{line}
	}
	var out [][2][]noteClause
	for _, l := range strings.Split(rest, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		var line [2][]noteClause
		user, reply, _ := strings.Cut(l, strings.TrimLeft(replySep, " "))
		for side, part := range []string{user, reply} {
			by := ""
			for _, p := range strings.Split(part, strings.TrimSpace(noteSep)) {
				p = strings.TrimSpace(p)
				if m := labelRE().FindStringSubmatch(p); m != nil {
					by, p = m[1], strings.TrimSpace(p[len(m[0]):])
				}
				if p != "" {
					// A note read back holds no separator of its own.
					line[side] = append(line[side], noteClause{text: strings.ReplaceAll(p, "→", "->"), by: by})
				}
			}
		}
		out = append(out, line)
	}
	return out
}
