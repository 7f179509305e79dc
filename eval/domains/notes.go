package domains

// What `make eval` reads back out of a final view to measure meaning:
// the notes of the summary, each found verbatim in the conversation and
// checked by the clause rule (clauses.go); the ledger's entries, and
// which of them came from a tool result's body only.

import (
	"regexp"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Note is one item of a notes line of a summary: Text, its speaker label
// taken off; Reply is set after the arrow; Call marks a rendered tool
// call ("called grep({...})"), which is no clause of anyone's text.
type Note struct {
	Text  string
	Reply bool
	Call  bool
}

// speakerLabel is a "Name: " at the start of a note or a ledger line.
var speakerLabel = regexp.MustCompile(`^([\p{L}\p{N}_.-][\p{L}\p{N}_. -]{0,39}): `)

// sizeMark is the size a masked tool result's note ends with.
var sizeMark = regexp.MustCompile(`\s*\[\d[\d,]* (?:lines?|bytes?|chars?|characters|tokens?|words?)\]$`)

// SummaryNotes are the notes of a summary's text: the lines after its
// notes heading (a line that opens with "Earlier", or "Decisions" under an
// agent session's sections, and ends with ":") up to
// the first blank line; on a line, the user's side before " → " (a line
// may open with "→ "), the replies after it; items parted by "; ".
func SummaryNotes(summary string) []Note {
	var out []Note
	in := false
	for _, line := range strings.Split(summary, "\n") {
		if !in {
			in = (strings.HasPrefix(line, "Earlier") || strings.HasPrefix(line, "Decisions")) && strings.HasSuffix(strings.TrimSpace(line), ":")
			continue
		}
		if strings.TrimSpace(line) == "" {
			break
		}
		user, reply := line, ""
		if r, ok := strings.CutPrefix(line, "→ "); ok {
			user, reply = "", r
		} else if u, r, ok := strings.Cut(line, " → "); ok {
			user, reply = u, r
		}
		for side, part := range []string{user, reply} {
			if strings.TrimSpace(part) == "" {
				continue
			}
			for _, item := range strings.Split(part, "; ") {
				item = strings.TrimSpace(item)
				if m := speakerLabel.FindString(item); m != "" {
					item = strings.TrimSpace(item[len(m):])
				}
				if item == "" {
					continue
				}
				out = append(out, Note{Text: item, Reply: side == 1,
					Call: strings.HasPrefix(item, "called ") && strings.HasSuffix(item, ")") && strings.Contains(item, "(")})
			}
		}
	}
	return out
}

// LedgerHeading opens the ledger's section of a summary.
const LedgerHeading = "Facts carried verbatim:"

// LedgerEntries are the entries of a summary's ledger: the lines "- who:
// a | b | c" after its heading, up to a line that is not one.
func LedgerEntries(summary string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(summary, "\n") {
		if !in {
			in = strings.HasPrefix(line, LedgerHeading)
			continue
		}
		rest, ok := strings.CutPrefix(line, "- ")
		if !ok {
			break
		}
		if m := speakerLabel.FindString(rest); m != "" {
			rest = rest[len(m):]
		}
		for _, e := range strings.Split(rest, " | ") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

// spaced collapses each run of white space to one space, or to a line
// break if it holds one, and trims the text: a note is verbatim up to
// white space (a masked result's note shows "=== RUN   TestX" as "=== RUN
// TestX").
func spaced(s string) string {
	var b strings.Builder
	run, nl := false, false
	flush := func() {
		if run && b.Len() > 0 {
			if nl {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		run, nl = false, false
	}
	for _, r := range s {
		switch r {
		case ' ', '\t', '\r', '\n', '\v', '\f', '\u00a0':
			run = true
			nl = nl || r == '\n'
			continue
		}
		flush()
		b.WriteRune(r)
	}
	return b.String()
}

// NoteScore counts what the notes of final summaries come to.
type NoteScore struct {
	// Notes are the notes that are not rendered tool calls; NotVerbatim
	// those found in no message (a masked result's size mark and a
	// clipped note's "…" taken off first); of the rest, Whole start and
	// end at clause boundaries, Flips lack a negation cue of their
	// clause or of a clause it depends on.
	Notes, NotVerbatim, Whole, Flips int
	// Examples of flips and of notes not verbatim, for -v.
	FlipNotes, Unfound []string
}

func (n *NoteScore) Add(o NoteScore) {
	n.Notes += o.Notes
	n.NotVerbatim += o.NotVerbatim
	n.Whole += o.Whole
	n.Flips += o.Flips
	n.FlipNotes = append(n.FlipNotes, o.FlipNotes...)
	n.Unfound = append(n.Unfound, o.Unfound...)
}

// ScoreNotes finds each note of a summary in the conversation's messages
// and checks it by the clause rule. A note is looked for in the contents
// of the messages of its side (the user's before the arrow, the others'
// after it), from the message the note before it was found in onwards
// (notes are in the order of what they cover), then anywhere; its source
// is the first message that holds it there.
func ScoreNotes(msgs []transcript.Message, notes []Note) NoteScore {
	var sc NoteScore
	type source struct {
		text, flat string
		user       bool
	}
	srcs := make([]source, len(msgs))
	for i, m := range msgs {
		t := spaced(strings.Join(m.Contents, "\n"))
		srcs[i] = source{t, strings.ReplaceAll(t, "\n", " "), m.Role == transcript.RoleUser}
	}
	cursor := 0
	for _, n := range notes {
		if n.Call {
			continue
		}
		sc.Notes++
		text := sizeMark.ReplaceAllString(n.Text, "")
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(text, "…"), "..."))
		text = strings.ReplaceAll(spaced(text), "\n", " ")
		at, off := -1, -1
		for _, pass := range [][2]int{{cursor, len(srcs)}, {0, cursor}} {
			for i := pass[0]; i < pass[1] && at < 0; i++ {
				if srcs[i].user == n.Reply || text == "" {
					continue
				}
				if k := strings.Index(srcs[i].flat, text); k >= 0 {
					at, off = i, k
				}
			}
		}
		if at < 0 {
			sc.NotVerbatim++
			if len(sc.Unfound) < 5 {
				sc.Unfound = append(sc.Unfound, n.Text)
			}
			continue
		}
		cursor = at
		whole, lacks := NoteCheck(srcs[at].text, off, off+len(text))
		if whole {
			sc.Whole++
		}
		if len(lacks) > 0 {
			sc.Flips++
			if len(sc.FlipNotes) < 5 {
				var cues []string
				for _, q := range lacks {
					cues = append(cues, q.Word)
				}
				sc.FlipNotes = append(sc.FlipNotes, n.Text+" [lacks "+strings.Join(cues, ", ")+"]")
			}
		}
	}
	return sc
}

// BodyEntries counts the ledger entries taken from tool bodies: an
// entry is parted into the runs of its last words (the whole entry, then
// without its first word, ...), leaving out runs under three characters
// and single plain lower-case words ("the", "input"); it is read from a
// tool body when a tool result's body holds one of its runs and no user
// or assistant text, tool call name or arguments holds any (its fact
// was never named by anyone). names counts those among them that are
// function or type names: a run "func X" or "type X", or a name the body
// declares with func or type.
func BodyEntries(msgs []transcript.Message, entries []string) (body, names int, examples []string) {
	var bodies, said strings.Builder
	for _, m := range msgs {
		for _, c := range m.Contents {
			if m.Role == transcript.RoleTool {
				bodies.WriteString(spaced(c) + "\n")
			} else {
				said.WriteString(spaced(c) + "\n")
			}
		}
		for _, tc := range m.ToolCalls {
			said.WriteString(tc.Name + " " + spaced(tc.Arguments) + "\n")
		}
	}
	b, s := bodies.String(), said.String()
	for _, e := range entries {
		fs := strings.Fields(e)
		inBody, named, isName := false, false, false
		for i := range fs {
			run := strings.Join(fs[i:], " ")
			if len(run) < 3 || i == len(fs)-1 && plainWord.MatchString(run) {
				continue
			}
			if strings.Contains(s, run) {
				named = true
				break
			}
			if strings.Contains(b, run) {
				inBody = true
				if codeName.MatchString(run) || strings.Contains(b, "func "+run+"(") || strings.Contains(b, "type "+run+" ") || strings.Contains(b, ") "+run+"(") {
					isName = true
				}
			}
		}
		if inBody && !named {
			body++
			if isName {
				names++
			}
			if len(examples) < 5 {
				examples = append(examples, e)
			}
		}
	}
	return body, names, examples
}

var (
	codeName  = regexp.MustCompile(`^(?:func|type)\s+[\p{L}_]`)
	plainWord = regexp.MustCompile(`^\p{Ll}+$`)
)
