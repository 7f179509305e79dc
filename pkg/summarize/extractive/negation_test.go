package extractive

import (
	"strings"
	"testing"

	"github.com/convo-cli/convo/eval/domains"
	"github.com/convo-cli/convo/pkg/summarize/span"
	"github.com/convo-cli/convo/pkg/transcript"
)

// negatedChat is a chat whose every other sentence holds a negation, in
// the shapes that a run of words cut at function words turned around.
var negatedChat = []string{
	"The backup server is not the one we use for exports.",
	"Understood, I will point the export job at the primary server instead.",
	"No contractor has access to the audit logs, and nobody outside finance should get it.",
	"No change there: another logging package.",
	"I have removed the contractor group from the audit bucket policy.",
	"Good, the build stays lean.",
	"Do not order the garlic bread, it arrives cold.",
	"Noted, I left the garlic bread off the catering order for Thursday.",
	"We won't move the servers until the lease is signed.",
	"I will hold the migration ticket until legal confirms the lease.",
	"I don't think the Friday window is safe, so we wait for Monday.",
	"Agreed, the rollout is scheduled for Monday morning at nine.",
	"It's not that the vendor is slow; they never answer the escalation line.",
	"I will escalate through the account manager instead of the hotline.",
	"The invoice was paid without the discount, which nobody noticed.",
	"I can request a credit note for the missing discount.",
	"Neither the staging database nor the cache should be touched today.",
	"Understood, I will leave staging and the cache alone today.",
	"The build is green for now, but I can't promise it stays green after the merge.",
	"I will rerun the pipeline after the merge lands.",
}

// TestNotesKeepNegation is the clause rule's property (doc.go): for every
// note of a summary, the sentence it came from holds no negation cue, in
// the note's clause or in a clause it depends on, that the note lacks. It
// runs on a chat of negations and on every generated domain.
func TestNotesKeepNegation(t *testing.T) {
	var convs [][]transcript.Record
	convs = append(convs, conversation(len(negatedChat), func(i int) string { return negatedChat[i] }))
	gen := append(domains.Support(1, 6), domains.Agent(1, 3)...)
	for _, c := range gen {
		convs = append(convs, appended(c.Messages))
	}
	ex := &Engine{Counter: counter(t)}
	notes := 0
	for ci, recs := range convs {
		var all []string
		for _, r := range recs {
			all = append(all, r.Message.Contents...)
		}
		for _, budget := range []int{60, 200, 800} {
			// A summary of the first half, then one of the second half
			// that carries it: notes read back must mean what they said.
			first, err := ex.Summarize(span.Input{Records: recs[:len(recs)/2], MaxTokens: budget})
			if err != nil {
				t.Fatal(err)
			}
			text, err := ex.Summarize(span.Input{Previous: first, Records: recs[len(recs)/2:], MaxTokens: budget})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range append(summaryNotes(first), summaryNotes(text)...) {
				if strings.HasPrefix(n, "called ") || strings.HasSuffix(n, " lines]") || strings.HasPrefix(n, "error from ") {
					continue // a tool call or a masked result: not a sentence said
				}
				notes++
				src, ok := sourceSentence(all, n)
				if !ok {
					t.Errorf("conversation %d: note %q is not verbatim in any sentence", ci, n)
					continue
				}
				if cue := lostCue(src, n); cue != "" {
					t.Errorf("conversation %d: note %q drops %q of %q", ci, n, cue, src)
				}
			}
		}
	}
	if notes < 50 {
		t.Fatalf("only %d notes checked", notes)
	}
}

// summaryNotes are the notes of a summary's text: its lines' items, less
// the speakers' labels.
func summaryNotes(text string) []string {
	var out []string
	for _, line := range previousNotes(text) {
		for _, side := range line {
			for _, p := range side {
				out = append(out, p.text)
			}
		}
	}
	return out
}

// sourceSentence is the sentence of texts that holds note verbatim
// (sentences as doc.go cuts them; a ";" of the text reads as the note's
// ",").
func sourceSentence(texts []string, note string) (string, bool) {
	for _, t := range texts {
		for line := range strings.SplitSeq(t, "\n") {
			fields := strings.Fields(line)
			for _, sp := range sentenceSpans(fields) {
				s := strings.Join(fields[sp[0]:sp[1]], " ")
				if strings.Contains(sanitizeNote(s), note) {
					return s, true
				}
			}
		}
	}
	return "", false
}

// clauseMarks are the boundaries after which a clause stands alone.
var clauseMarks = []string{"; ", ": ", " - ", " – ", " — ", ", and ", ", but ", ", or ", ", so ", ", yet "}

// lastMark is where the last clause of s starts, after its last boundary
// mark, or -1.
func lastMark(s string) int {
	best := -1
	for _, m := range clauseMarks {
		if i := strings.LastIndex(s, m); i >= 0 && i+len(m) > best {
			best = i + len(m)
		}
	}
	return best
}

// startsClause reports whether a note that follows before in its sentence
// opens a clause of its own: at the sentence's start, after a boundary
// mark, or at a conjunction after a comma or before a subject pronoun.
func startsClause(before, note string) bool {
	b := strings.TrimRight(before, " ")
	if b == "" || strings.HasSuffix(b, ";") || strings.HasSuffix(b, ":") || dash(b[strings.LastIndexByte(b, ' ')+1:]) {
		return true
	}
	w := strings.Fields(note)
	if !coordinators[strings.ToLower(w[0])] {
		return false
	}
	return strings.HasSuffix(b, ",") || len(w) > 1 && inStem(subjects, w[1])
}

// lostCue is a negation cue of the part of sentence s the note depends on
// that the note lacks, or "". That part runs from the hard boundary before
// the note (";", ": ", a spaced dash, ", and/but/or/so/yet") to the one
// after it; a negated frame opening the sentence governs all of it.
func lostCue(s, note string) string {
	// Compared as the note is written: a ";" read as ",", a no-break
	// space after a colon (sanitizeNote) read as a space.
	nbsp := strings.NewReplacer("\u00a0", " ")
	note = nbsp.Replace(note)
	at := strings.Index(nbsp.Replace(sanitizeNote(s)), note)
	fields := strings.Fields(s)
	if negatedFrame(fields) {
		for _, w := range fields {
			if isNegation(w) && !strings.Contains(note, strings.Trim(w, `,.;:!?"'“”‘’*_()`)) {
				return w
			}
		}
		return ""
	}
	before, after := s[:at], s[at+len(note):]
	// A part with no verb of its own depends on a negated clause before
	// it ("No change there: another logging package").
	if !hasVerb(strings.Fields(note)) {
		for _, w := range strings.Fields(before) {
			if isNegation(w) {
				return w
			}
		}
	}
	if startsClause(before, note) {
		before = ""
	}
	// The clause's start: after the last boundary of before.
	if i := lastMark(before); i >= 0 {
		before = before[i:]
	}
	// Its end: the first boundary of after.
	var tail []string
	for i, w := range strings.Fields(after) {
		if dash(w) || coordinators[strings.ToLower(w)] && startsClause(strings.Join(tail, " "), strings.Join(strings.Fields(after)[i:], " ")) {
			break
		}
		tail = append(tail, w)
		if strings.HasSuffix(w, ";") || strings.HasSuffix(w, ":") {
			break
		}
	}
	after = strings.Join(tail, " ")
	for _, w := range strings.Fields(before + " " + after) {
		if isNegation(w) {
			return w
		}
	}
	return ""
}

// appended is a generated conversation's messages through the real
// appender, as records.
func appended(msgs []transcript.Message) []transcript.Record {
	app := transcript.NewAppender("c", nil, transcript.NewIDs(), func() int64 { return 1000 })
	var out []transcript.Record
	for _, m := range msgs {
		for _, ch := range app.Append(transcript.Record{Message: m}) {
			out = append(out, ch.Record.Clone())
		}
	}
	return out
}

// lostCue must see what a note cut at function words drops.
func TestLostCue(t *testing.T) {
	tests := []struct{ sentence, note, want string }{
		{"The backup server is not the one we use for exports.", "the one we use for exports", "not"},
		{"The backup server is not the one we use for exports.", "The backup server is not the one we use for exports", ""},
		{"No contractor has access to the audit logs.", "access to the audit logs", "No"},
		{"Do not order the garlic bread, it arrives cold.", "the garlic bread", "not"},
		{"I don't think the migration is safe, and we should wait.", "and we should wait", "don't"},
		{"The portal is down and we can't log in.", "The portal is down", ""},
		{"The portal is down and we can't log in.", "and we can't log in", ""},
		{"We won't move the servers until the lease is signed.", "until the lease is signed", "won't"},
		{"No change there: another logging package.", "another logging package", "No"},
		{"Update: the courier picked it up.", "the courier picked it up", ""},
	}
	for _, tt := range tests {
		if got := lostCue(tt.sentence, tt.note); got != tt.want {
			t.Errorf("lostCue(%q, %q) = %q, want %q", tt.sentence, tt.note, got, tt.want)
		}
	}
}
