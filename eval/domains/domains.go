// Package domains generates the two synthetic evaluation domains of
// `make eval`: multi-issue customer support chats and coding-agent sessions
// with tool calls. Each conversation comes with questions that ask for one
// identifier said in it (an order id, an IBAN, a git SHA, a failing test),
// so an evaluation can check what a summary keeps verbatim, and questions
// about facts in words (a customer's preference, a constraint on a task,
// the root cause found, a decision and its reason), whose answers are a
// few words said verbatim, as LoCoMo's are: no identifier rule of the
// ledger can keep those, only the notes.
//
// SupportMeaning and AgentMeaning add conversations that test meaning
// (meaning.go): negated statements and standing instructions in support
// chats, error lines past a tool result's first line and files full of
// declarations in agent sessions. clauses.go and notes.go are the eval's
// own reading of the clause rule of pkg/summarize/extractive/doc.go, by
// which `make eval` checks the notes of a final summary, apart from the
// engine's code.
//
// Everything is drawn from math/rand/v2 PCG streams derived from the seed
// and the conversation's index: the same seed gives byte-identical output,
// and no map iteration, clock or global source is involved.
package domains

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Conversation is one generated conversation: the messages in order (as
// they would be appended: Role, Contents, ToolCalls, ToolCallID, Name set;
// no ids, no metadata) and its questions.
type Conversation struct {
	Name      string
	Messages  []transcript.Message
	Questions []Question
}

// Question asks for one identifier: Label is the few words that say what it
// is ("courier reference"), Answer the identifier verbatim ("AZ-7781-XQ"),
// Kind its shape ("order id", "email", "url", ...). Turn is the index in
// Messages where it is (first) said. A Prose question asks instead for a
// fact in words (a preference, a constraint, a cause, a decision): Answer
// is a few words said verbatim in the conversation ("closed on Fridays"),
// Kind what sort of fact it is, scored as LoCoMo's answers are.
type Question struct {
	Label, Answer, Kind string
	Turn                int
	Prose               bool `json:",omitempty"`
}

// Describe returns one paragraph describing the two domains, for the docs.
func Describe() string {
	return "Two generated domains complement LoCoMo. Support: multi-issue customer support " +
		"and operations chats (some of them travel bookings) between a customer (user) and an " +
		"agent (assistant), from short dense chats of 60-120 messages with 10-16 identifiers to " +
		"long ones of 400-700 messages with 20-30; every identifier shape is asked for (order and " +
		"ticket ids, PO numbers, courier and booking references, e-mail addresses, URLs with " +
		"query strings, IBANs, phone numbers, versions, dates, times, amounts, file paths, SKUs, " +
		"shell commands), said by either side, once or repeated, early or late, amid greetings, " +
		"troubleshooting, policy paragraphs and standing instructions. Agent: coding-agent " +
		"sessions in which user prompts are followed by assistant turns calling read_file, bash, " +
		"edit_file, grep and run_tests, with tool results that are source files, build errors " +
		"with file:line, test output with subtest names, stack traces and git logs, sometimes " +
		"several thousand characters each; some sessions have one prompt followed by 100 or more " +
		"tool calls and exceed 80,000 tokens. Questions there ask for file paths, commands, error " +
		"messages, test names, git SHAs, branches, ports, environment variables, versions, URLs and " +
		"issue numbers. Each question names its identifier the way the conversation does " +
		"(\"courier reference\", \"failing test\") and its answer appears verbatim in the " +
		"conversation. Both domains also hold facts in words that are not identifiers, each asked " +
		"for by a few content words said verbatim (scored as LoCoMo's answers are): in support " +
		"chats the customer's preferences and constraints (how to be contacted, when they are " +
		"away, where a parcel should go, what arrived damaged, when a fault happens) and the " +
		"agent's findings and decisions with their reasons (\"refund rather than replace because " +
		"the model is discontinued\"); in agent sessions the user's goal, constraints (\"don't add " +
		"any new dependencies\"), style preferences and what they noticed (\"only fails under " +
		"load\"), in the prompt or in a word between tool calls, and the root cause the agent finds " +
		"and the design decisions it makes with their reasons. Added to each domain, conversations that " +
		"test meaning: support chats with negated statements (\"No contractor has access to the audit logs\") " +
		"and standing instructions hidden in the chatter (\"Don't call me on my mobile after 6 pm.\"), and agent " +
		"sessions whose failing tool results carry their error line past the first line (test assertions, " +
		"Python exceptions, compiler diagnostics, panics, git's fatal:) and that read files full of function " +
		"and type declarations nobody names. Several templates per kind of fact, " +
		"said once or repeated by either side, early or late, placed amid the chatter from a random " +
		"stream of their own, so the identifiers and chatter are drawn as without them. Generation " +
		"is deterministic for a seed."
}

// stream returns the random source of conversation i of a domain: one PCG
// stream per (domain, index), so conversations do not shift when n changes.
func stream(seed int64, domain uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), domain<<32|uint64(i)))
}

// builder accumulates one conversation and its questions.
type builder struct {
	r      *rand.Rand
	msgs   []transcript.Message
	qs     []Question
	labels []string // labels taken, so that each question names one identifier
	taken  []string // answers and their alternative spellings
	calls  int      // tool calls so far, for their ids
}

func (b *builder) say(role transcript.Role, text string) {
	b.msgs = append(b.msgs, transcript.Message{Role: role, Contents: []string{text}})
}

// call appends an assistant record with tool calls; text may be empty, as
// an agent often calls tools without a word.
func (b *builder) call(text string, calls ...transcript.ToolCall) {
	m := transcript.Message{Role: transcript.RoleAssistant, Contents: []string{}, ToolCalls: calls}
	if text != "" {
		m.Contents = []string{text}
	}
	b.msgs = append(b.msgs, m)
}

func (b *builder) result(c transcript.ToolCall, out string, isErr bool) {
	b.msgs = append(b.msgs, transcript.Message{Role: transcript.RoleTool, Contents: []string{out},
		ToolCallID: c.ID, Name: c.Name, IsError: isErr})
}

func (b *builder) newCall(name string, kv ...string) transcript.ToolCall {
	b.calls++
	return transcript.ToolCall{ID: fmt.Sprintf("call_%d", b.calls), Name: name, Arguments: jsonObject(kv...)}
}

// fresh draws from gen until the identifier and its alternative spelling
// share no substring with one already used: an answer inside another
// answer would make two questions ambiguous. It gives up (ok false) when
// gen's range is exhausted.
func (b *builder) fresh(gen func() (x, alt string)) (x, alt string, ok bool) {
	for range 200 {
		x, alt = gen()
		if !b.clash(x) && (alt == "" || !b.clash(alt)) {
			b.taken = append(b.taken, x)
			if alt != "" {
				b.taken = append(b.taken, alt)
			}
			return x, alt, true
		}
	}
	return "", "", false
}

func (b *builder) clash(x string) bool {
	for _, t := range b.taken {
		if strings.Contains(t, x) || strings.Contains(x, t) {
			return true
		}
	}
	return false
}

var ordinals = []string{"second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}

// label takes one of alts not yet used in this conversation, or qualifies
// the first with an ordinal ("second failing test").
func (b *builder) label(alts []string) string { return b.labelFrom(b.r, alts) }

// labelFrom is label drawing from r.
func (b *builder) labelFrom(r *rand.Rand, alts []string) string {
	for _, i := range r.Perm(len(alts)) {
		if !slices.Contains(b.labels, alts[i]) {
			b.labels = append(b.labels, alts[i])
			return alts[i]
		}
	}
	for _, o := range ordinals {
		if l := o + " " + alts[0]; !slices.Contains(b.labels, l) {
			b.labels = append(b.labels, l)
			return l
		}
	}
	panic("domains: out of labels for " + alts[0])
}

// ask adds a question; its label is lowercased ("refund iban"), the text
// keeps its own case ("refund IBAN").
func (b *builder) ask(label, answer, kind string) {
	b.qs = append(b.qs, Question{Label: strings.ToLower(label), Answer: answer, Kind: kind})
}

// finish sets each question's Turn to the first message that says its
// answer, in contents or tool-call arguments, and orders questions by it.
func (b *builder) finish(name string) Conversation {
	for i := range b.qs {
		b.qs[i].Turn = firstTurn(b.msgs, b.qs[i].Answer)
		if b.qs[i].Turn < 0 {
			panic(fmt.Sprintf("domains: %s: answer %q never said", name, b.qs[i].Answer))
		}
	}
	slices.SortStableFunc(b.qs, func(a, c Question) int { return a.Turn - c.Turn })
	return Conversation{Name: name, Messages: b.msgs, Questions: b.qs}
}

func firstTurn(msgs []transcript.Message, x string) int {
	for i, m := range msgs {
		for _, c := range m.Contents {
			if strings.Contains(c, x) {
				return i
			}
		}
		for _, c := range m.ToolCalls {
			if strings.Contains(c.Arguments, x) {
				return i
			}
		}
	}
	return -1
}

// jsonObject renders key/value pairs as compact JSON in the order given,
// without the HTML escaping of encoding/json (a command keeps its `&&`).
func jsonObject(kv ...string) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(quote(kv[i]) + ":" + quote(kv[i+1]))
	}
	sb.WriteByte('}')
	return sb.String()
}

func quote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(c)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&sb, `\u%04x`, c)
		default:
			sb.WriteRune(c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// fill replaces {L} and {X} (and any further pairs) in a template.
func fill(tmpl string, kv ...string) string { return strings.NewReplacer(kv...).Replace(tmpl) }

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// between returns a number in [lo, hi].
func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

func digits(r *rand.Rand, n int) string {
	b := []byte{byte('1' + r.IntN(9))}
	for len(b) < n {
		b = append(b, byte('0'+r.IntN(10)))
	}
	return string(b)
}

// letters avoids I and O, which read as digits in references.
func letters(r *rand.Rand, n int) string {
	const abc = "ABCDEFGHJKLMNPQRSTUVWXYZ"
	b := make([]byte, n)
	for i := range b {
		b[i] = abc[r.IntN(len(abc))]
	}
	return string(b)
}

func hex(r *rand.Rand, n int) string {
	const h = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = h[r.IntN(16)]
	}
	return string(b)
}

// size estimates a conversation's tokens as characters / 4.
func size(msgs []transcript.Message) int {
	n := 0
	for _, m := range msgs {
		for _, c := range m.Contents {
			n += len(c)
		}
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	return n / 4
}
