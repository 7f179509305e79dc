package domains

import (
	"math/rand/v2"
	"strings"
)

// Facts in words: what a conversation holds besides identifiers, and what
// a summary keeps only in its notes (the ledger carries identifiers and
// instructions). A customer's preference or constraint, what arrived
// broken, a decision and its reason, an agent session's goal, the root
// cause found. Each is asked for as LoCoMo's answers are: a few content
// words said verbatim in the conversation, scored by answers kept and
// answer-word recall.

// noProse leaves the facts in words out; tests set it to check that they
// are drawn apart from everything else.
var noProse bool

// pfact is one kind of fact in words. Each of its values is a clause with
// its answers in brackets ("our office is [closed on Fridays]"); labels
// has the names a question may give each bracket, in order. says are the
// sentences that say it ({X} the clause, brackets dropped), again the
// same side's repeats of it, echo the other side's ({A} the first
// answer).
type pfact struct {
	kind   string
	labels [][]string
	user   bool
	values []string
	says   []string
	again  []string
	echo   []string
}

// proseLine is one sentence of a fact in words, to be placed in an
// exchange (support) or a message (agent).
type proseLine struct {
	at   int  // exchange (support) or place in the session (agent)
	user bool // the user (customer) says it
	text string
}

// clause returns a value's text without brackets and its answers.
func clause(v string) (text string, answers []string) {
	var sb strings.Builder
	for {
		i := strings.IndexByte(v, '[')
		if i < 0 {
			sb.WriteString(v)
			return sb.String(), answers
		}
		j := strings.IndexByte(v[i:], ']') + i
		sb.WriteString(v[:i])
		sb.WriteString(v[i+1 : j])
		answers = append(answers, v[i+1:j])
		v = v[j+1:]
	}
}

// prose draws a value of f whose answers clash with none asked yet, asks
// its questions and returns the sentence that says it, its clause and
// its first answer; ok is false when every value clashes.
func (b *builder) prose(r *rand.Rand, f pfact) (said, text, first string, ok bool) {
	for _, k := range r.Perm(len(f.values)) {
		text, answers := clause(f.values[k])
		if b.proseClash(answers) {
			continue
		}
		for i, a := range answers {
			b.qs = append(b.qs, Question{Label: strings.ToLower(b.labelFrom(r, f.labels[i])), Answer: a, Kind: f.kind, Prose: true})
		}
		return fill(pick(r, f.says), "{X}", text), text, answers[0], true
	}
	return "", "", "", false
}

// proseClash reports whether an answer shares its words with one asked
// already (either holds the other), which would make two questions one.
func (b *builder) proseClash(answers []string) bool {
	for _, a := range answers {
		na := " " + strings.ToLower(a) + " "
		for _, q := range b.qs {
			nq := " " + strings.ToLower(q.Answer) + " "
			if strings.Contains(na, nq) || strings.Contains(nq, na) {
				return true
			}
		}
	}
	return false
}

// repeats returns 0-2 later sentences that say a fact again: by the
// same side (again) or, more often, the other (echo).
func repeats(r *rand.Rand, f pfact, text, first string) []proseLine {
	var out []proseLine
	for range max(0, r.IntN(4)-1) {
		if len(f.again) > 0 && r.IntN(3) == 0 {
			out = append(out, proseLine{user: f.user, text: fill(pick(r, f.again), "{X}", text)})
		} else if len(f.echo) > 0 {
			out = append(out, proseLine{user: !f.user, text: fill(pick(r, f.echo), "{A}", first)})
		}
	}
	return out
}

// insertSentence places s in text: first, last, or after its first
// sentence, as r draws; a paragraph break keeps its place last.
func insertSentence(r *rand.Rand, text, s string) string {
	body, para, hasPara := strings.Cut(text, "\n\n")
	switch r.IntN(3) {
	case 0:
		body = s + " " + body
	case 1:
		if i := strings.Index(body, ". "); i > 0 {
			body = body[:i+2] + s + " " + body[i+2:]
			break
		}
		fallthrough
	default:
		body = body + " " + s
	}
	if hasPara {
		return body + "\n\n" + para
	}
	return body
}
