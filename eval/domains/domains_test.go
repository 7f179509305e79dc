package domains

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/convo-cli/convo/pkg/transcript"
)

var seeds = []int64{1, 2, 3, 42, -7}

type domain struct {
	name string
	gen  func(int64, int) []Conversation
}

var both = []domain{{"support", Support}, {"agent", Agent}}

func encode(t *testing.T, cs []Conversation) []byte {
	t.Helper()
	b, err := json.Marshal(cs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDeterministic(t *testing.T) {
	for _, d := range both {
		a, b := d.gen(7, 6), d.gen(7, 6)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed, different conversations", d.name)
		}
		if !bytes.Equal(encode(t, a), encode(t, b)) {
			t.Errorf("%s: same seed, different JSON", d.name)
		}
		if bytes.Equal(encode(t, a), encode(t, d.gen(8, 6))) {
			t.Errorf("%s: seeds 7 and 8 give the same conversations", d.name)
		}
		// Each conversation has its own stream: asking for fewer gives a prefix.
		if !reflect.DeepEqual(d.gen(7, 3), a[:3]) {
			t.Errorf("%s: conversation i depends on n", d.name)
		}
		for i := 1; i < len(a); i++ {
			if reflect.DeepEqual(a[i].Messages, a[i-1].Messages) {
				t.Errorf("%s: conversations %d and %d are identical", d.name, i-1, i)
			}
		}
	}
}

// saidAt reports the first message whose contents or tool-call arguments
// hold x.
func saidAt(msgs []transcript.Message, x string) int {
	for i, m := range msgs {
		if slices.ContainsFunc(m.Contents, func(c string) bool { return strings.Contains(c, x) }) ||
			slices.ContainsFunc(m.ToolCalls, func(c transcript.ToolCall) bool { return strings.Contains(c.Arguments, x) }) {
			return i
		}
	}
	return -1
}

// labelled reports whether some content that holds answer also holds label
// in the same line, within 160 characters of it: the sentence that names it.
func labelled(msgs []transcript.Message, label, answer string) bool {
	label = strings.ToLower(label)
	for _, m := range msgs {
		for _, c := range m.Contents {
			for off := 0; ; {
				i := strings.Index(c[off:], answer)
				if i < 0 {
					break
				}
				i += off
				lo, hi := max(0, i-160), min(len(c), i+len(answer)+160)
				if j := strings.LastIndexByte(c[lo:i], '\n'); j >= 0 {
					lo += j
				}
				if j := strings.IndexByte(c[i:hi], '\n'); j >= 0 {
					hi = i + j
				}
				if strings.Contains(strings.ToLower(c[lo:hi]), label) {
					return true
				}
				off = i + len(answer)
			}
		}
	}
	return false
}

func TestQuestions(t *testing.T) {
	for _, d := range both {
		for _, seed := range seeds {
			for _, c := range d.gen(seed, 12) {
				if len(c.Questions) < 5 {
					t.Errorf("%s: only %d questions", c.Name, len(c.Questions))
				}
				var labels, answers, prose []string
				for _, q := range c.Questions {
					where := fmt.Sprintf("%s: %q (%s)", c.Name, q.Answer, q.Label)
					if n := len(strings.Fields(q.Label)); n < 2 || n > 5 || q.Label != strings.ToLower(q.Label) {
						t.Errorf("%s: label is not 2-5 lowercase words", where)
					}
					if q.Answer == "" || q.Kind == "" || strings.TrimSpace(q.Answer) != q.Answer {
						t.Errorf("%s: empty or padded answer, or no kind", where)
					}
					if got := saidAt(c.Messages, q.Answer); got < 0 || got != q.Turn {
						t.Errorf("%s: Turn %d, first said at %d", where, q.Turn, got)
					}
					if slices.Contains(labels, q.Label) {
						t.Errorf("%s: label used twice", where)
					}
					labels = append(labels, q.Label)
					if q.Prose {
						checkProse(t, where, c, q, prose)
						prose = append(prose, q.Answer)
						continue
					}
					if !labelled(c.Messages, q.Label, q.Answer) {
						t.Errorf("%s: no sentence says the label next to the answer", where)
					}
					for _, a := range answers {
						if strings.Contains(a, q.Answer) || strings.Contains(q.Answer, a) {
							t.Errorf("%s: overlaps answer %q", where, a)
						}
					}
					answers = append(answers, q.Answer)
				}
				if !slices.IsSortedFunc(c.Questions, func(a, b Question) int { return a.Turn - b.Turn }) {
					t.Errorf("%s: questions not in order of turn", c.Name)
				}
			}
		}
	}
}

// TestRoles checks section 2 of the spec as the messages stand: user first;
// user and assistant alternate; tool records follow the assistant record
// calling them, one per call, each answering an open call; an assistant may
// follow tool records (to call again or to answer).
func TestRoles(t *testing.T) {
	for _, d := range both {
		for _, seed := range seeds {
			for _, c := range d.gen(seed, 12) {
				checkRoles(t, c)
			}
		}
	}
}

func checkRoles(t *testing.T, c Conversation) {
	t.Helper()
	if len(c.Messages) == 0 || c.Messages[0].Role != transcript.RoleUser {
		t.Errorf("%s: does not start with a user message", c.Name)
		return
	}
	ids := map[string]bool{}
	var open []transcript.ToolCall // calls of the last assistant not answered yet
	prev := transcript.Role("")
	for i, m := range c.Messages {
		where := fmt.Sprintf("%s[%d]", c.Name, i)
		rec := transcript.Record{Message: m}
		if err := transcript.Validate(&rec); err != nil {
			t.Errorf("%s: %v", where, err)
		}
		if m.Role != transcript.RoleTool && len(open) > 0 {
			t.Errorf("%s: %s before every call is answered (%s open)", where, m.Role, open[0].ID)
			open = nil
		}
		switch m.Role {
		case transcript.RoleUser:
			if prev != transcript.RoleAssistant && i > 0 {
				t.Errorf("%s: user after %s", where, prev)
			}
		case transcript.RoleAssistant:
			if prev != transcript.RoleUser && prev != transcript.RoleTool {
				t.Errorf("%s: assistant after %s", where, prev)
			}
			for _, tc := range m.ToolCalls {
				if ids[tc.ID] || !strings.HasPrefix(tc.ID, "call_") {
					t.Errorf("%s: tool call id %q reused or malformed", where, tc.ID)
				}
				ids[tc.ID] = true
				var args map[string]string
				var compact bytes.Buffer
				if json.Unmarshal([]byte(tc.Arguments), &args) != nil || json.Compact(&compact, []byte(tc.Arguments)) != nil || compact.String() != tc.Arguments {
					t.Errorf("%s: arguments %q are not a compact JSON object of strings", where, tc.Arguments)
				}
				if !slices.Contains([]string{"read_file", "bash", "edit_file", "grep", "run_tests"}, tc.Name) {
					t.Errorf("%s: unknown tool %q", where, tc.Name)
				}
			}
			open = slices.Clone(m.ToolCalls)
		case transcript.RoleTool:
			k := slices.IndexFunc(open, func(tc transcript.ToolCall) bool { return tc.ID == m.ToolCallID })
			if k < 0 {
				t.Errorf("%s: tool record answers %q, no open call", where, m.ToolCallID)
				break
			}
			if open[k].Name != m.Name {
				t.Errorf("%s: tool record named %q answers a %q call", where, m.Name, open[k].Name)
			}
			open = slices.Delete(open, k, k+1)
		default:
			t.Errorf("%s: role %q", where, m.Role)
		}
		for _, s := range m.Contents {
			if strings.TrimSpace(s) == "" {
				t.Errorf("%s: blank content", where)
			}
			if strings.ContainsFunc(s, func(r rune) bool { return r == unicode.ReplacementChar }) {
				t.Errorf("%s: invalid UTF-8", where)
			}
		}
		prev = m.Role
	}
	if len(open) > 0 || prev != transcript.RoleAssistant {
		t.Errorf("%s: ends with %s, %d calls open", c.Name, prev, len(open))
	}
}

func tokens(c Conversation) int {
	n := 0
	for _, m := range c.Messages {
		for _, s := range m.Contents {
			n += len(s)
		}
		for _, tc := range m.ToolCalls {
			n += len(tc.Arguments)
		}
	}
	return n / 4
}

func TestSizes(t *testing.T) {
	support := Support(1, 12)
	var short, long, travel int
	for _, c := range support {
		n := len(c.Messages)
		if n < 60 || n > 700 {
			t.Errorf("%s: %d messages", c.Name, n)
		}
		ids := slices.DeleteFunc(slices.Clone(c.Questions), func(q Question) bool { return q.Prose })
		if n <= 120 && len(ids) >= 10 && len(ids) <= 16 {
			short++
		}
		if n >= 400 && len(ids) >= 20 && tokens(c) > 20000 {
			long++
		}
		if strings.Contains(c.Messages[1].Contents[0], "Wayfarer Travel") {
			travel++
		}
	}
	if short < 2 || long < 2 || travel < 2 {
		t.Errorf("support: %d short dense chats, %d long ones over 20,000 tokens, %d travel chats; want 2 of each", short, long, travel)
	}

	var big, marathon, twoPrompts, multi int
	for _, c := range Agent(1, 12) {
		users, run, most := 0, 0, 0
		for _, m := range c.Messages {
			if m.Role == transcript.RoleUser {
				users, run = users+1, 0
			}
			run += len(m.ToolCalls)
			most = max(most, run)
		}
		if tokens(c) > 20000 {
			big++
		}
		if most >= 100 {
			marathon++
		}
		if users == 2 && tokens(c) > 80000 {
			twoPrompts++
		}
		if users >= 3 {
			multi++
		}
	}
	if big < 4 || marathon < 1 || twoPrompts < 1 || multi < 2 {
		t.Errorf("agent: %d sessions over 20,000 tokens, %d with 100+ tool calls after one prompt, %d of two prompts over 80,000 tokens, %d with 3+ prompts",
			big, marathon, twoPrompts, multi)
	}
}

func TestDescribe(t *testing.T) {
	if d := Describe(); len(d) < 200 || strings.Contains(d, "\n") {
		t.Errorf("Describe: want one paragraph, got %q", d)
	}
}
