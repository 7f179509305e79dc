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

// all are both and the conversations added to them (meaning.go), whose
// facts in words are drawn as both's are.
var all = append(slices.Clone(both), domain{"support-meaning", SupportMeaning}, domain{"agent-meaning", AgentMeaning})

func encode(t *testing.T, cs []Conversation) []byte {
	t.Helper()
	b, err := json.Marshal(cs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDeterministic(t *testing.T) {
	for _, d := range all {
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
	for _, d := range all {
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
					if slices.Contains(labels, q.Label) && q.Kind != KindInstruction {
						t.Errorf("%s: label used twice", where)
					}
					if q.Kind == KindInstruction {
						checkInstruction(t, where, c, q)
						continue
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
	for _, d := range all {
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

// checkInstruction holds a standing instruction to what the eval checks:
// a whole sentence of a user's message, said at its turn, that opens
// with one of the forms of an instruction.
func checkInstruction(t *testing.T, where string, c Conversation, q Question) {
	t.Helper()
	if q.Turn < 0 || c.Messages[q.Turn].Role != transcript.RoleUser ||
		!slices.ContainsFunc(c.Messages[q.Turn].Contents, func(s string) bool { return strings.Contains(s, q.Answer) }) {
		t.Errorf("%s: not in the user's message %d", where, q.Turn)
	}
	if !strings.HasSuffix(q.Answer, ".") || !slices.ContainsFunc(openers, func(o string) bool { return strings.HasPrefix(q.Answer, o+" ") }) {
		t.Errorf("%s: not a sentence that opens as an instruction", where)
	}
}

var openers = []string{"Do not", "Don't", "Never", "Always", "Please", "Make sure", "Remember to", "Stop", "Avoid", "You must", "You should", "You shouldn't", "You need to"}

// TestMeaningDomains: the planted chats hold instructions of every form,
// negated statements, and the sessions error lines past a result's first
// line and files full of declarations; the original conversations are
// drawn as before (the added ones have streams of their own).
func TestMeaningDomains(t *testing.T) {
	forms := map[string]int{}
	negated := 0
	for _, c := range SupportMeaning(1, 24) {
		n := 0
		for _, q := range c.Questions {
			if q.Kind == KindInstruction {
				n++
				for _, o := range openers {
					if strings.HasPrefix(q.Answer, o+" ") {
						forms[o]++
					}
				}
			}
		}
		if n < 3 || n > 5 {
			t.Errorf("%s: %d instructions, want 3-5", c.Name, n)
		}
		for _, m := range c.Messages {
			for _, s := range m.Contents {
				for _, cue := range []string{" is not the one we use for ", "No contractor", "No intern", "No reseller", "No temp", "We won't ", "Nobody on our team", "I never got", "Neither the ", "I don't think the ", "We cannot accept", "None of the ", "There's nothing wrong", "doesn't work without", "It's not that the "} {
					negated += strings.Count(s, cue)
				}
			}
		}
	}
	for _, o := range []string{"Do not", "Don't", "Never", "Always", "Please", "Make sure", "Remember to", "Stop", "Avoid", "You must", "You should", "You need to"} {
		if forms[o] == 0 {
			t.Errorf("support-meaning: no instruction opens with %q (%v)", o, forms)
		}
	}
	if negated < 24*4 {
		t.Errorf("support-meaning: %d negated statements in 24 chats, want at least 4 each", negated)
	}
	if !reflect.DeepEqual(Support(3, 4), Support(3, 8)[:4]) || reflect.DeepEqual(SupportMeaning(3, 1)[0].Messages, Support(3, 1)[0].Messages) {
		t.Error("support-meaning is not drawn apart from support")
	}

	for _, c := range AgentMeaning(1, 8) {
		past, decls := 0, false
		for _, m := range c.Messages {
			if m.Role != transcript.RoleTool {
				continue
			}
			for _, s := range m.Contents {
				first, rest, _ := strings.Cut(s, "\n")
				if len(s) > 300 && !errorLine.MatchString(first) && len(ErrorLines([]transcript.Message{{Role: transcript.RoleTool, Contents: []string{rest}}})) > 0 {
					past++
				}
				if strings.Count(s, "\tfunc ") >= 8 && strings.Count(s, "\ttype ") >= 8 {
					decls = true
				}
			}
		}
		if past < 3 || !decls {
			t.Errorf("%s: %d results over 300 bytes with their error past the first line, files of declarations %v", c.Name, past, decls)
		}
		if !slices.ContainsFunc(c.Questions, func(q Question) bool { return q.Kind == KindInstruction }) {
			t.Errorf("%s: no standing instruction", c.Name)
		}
	}
}

// TestNoteCheck holds the clause rule as the eval reads it to notes of
// known answers: whether each is a whole clause, and which negation cues
// of its clause (or of one it depends on) it lacks.
func TestNoteCheck(t *testing.T) {
	for _, tc := range []struct {
		source, note string
		whole        bool
		lacks        string
	}{
		{"The backup server is not the one we use for exports.", "the one we use for exports", false, "not"},
		// A subject pronoun in a contraction opens a clause: "and it's …".
		{"He was part of our family for 10 years and it's so hard to think he's not here.", "He was part of our family for 10 years", true, ""},
		{"The backup server is not the one we use for exports.", "The backup server is not the one we use for exports", true, ""},
		{"The backup server is not the one we use for exports.", "The backup server", false, "not"},
		{"No contractor has access to the audit logs.", "access to the audit logs", false, "No"},
		{"Do not order the garlic bread, it arrives cold.", "order the garlic bread", false, "not"},
		{"Do not order the garlic bread, it arrives cold.", "Do not order the garlic bread, it arrives cold.", true, ""},
		{"We won't move the servers until the lease is signed.", "We won't move the servers", false, ""},
		{"We won't move the servers until the lease is signed.", "the lease is signed", false, "won't"},
		{"I don't think we should go, but we will.", "we will", false, "don't"},
		{"I like fish, and I don't eat meat.", "I like fish", true, ""},
		{"I like fish, and I don't eat meat.", "I don't eat meat", true, ""},
		{"I like fish, and I don't eat meat.", "and I don't eat meat.", true, ""},
		{"I don't eat meat, or fish.", "I don't eat meat", false, ""},
		{"I don't eat meat, or fish.", "fish", false, "don't"},
		{"Salt and pepper are on the table.", "pepper are on the table", false, ""},
		{"If it's not raining, we go out and we eat.", "we eat", true, "not"},
		{"If it's not raining, we go out and we eat.", "we go out", false, "not"},
		{"Not only is it fast, but it is also cheap.", "it is also cheap", true, ""},
		{"No, that's fine.", "that's fine", false, ""},
		{"The build is green for now.", "The build is green for now", true, ""},
		{"The build is green for now.", "The build", false, ""},
		{"Version v1.2 is out. We did not ship it.", "Version v1.2 is out", true, ""},
		{"Version v1.2 is out. We did not ship it.", "We did not ship it", true, ""},
		{"See e.g. the manual; it is not there.", "See e.g. the manual", true, ""},
		{"See e.g. the manual; it is not there.", "it is not there", true, ""},
		{"Status: nothing changed - we wait.", "we wait", true, ""},
		{"Status: nothing changed - we wait.", "changed", false, "nothing"},
		{"The flaky test only fails under load\nIt never fails locally", "It never fails locally", true, ""},
		{"Neither the invoice nor the charger has arrived.", "the charger has arrived", false, "Neither, nor"},
		{"Error: old string not found in a/b.go; read the file again before editing.", "read the file again before editing", true, ""},
		{"Nobody rang the bell, and the neighbours didn't take anything in.", "the neighbours didn't take anything in", true, ""},
		{"Nobody rang the bell, and the neighbours didn't take anything in.", "rang the bell", false, "Nobody"},
		{"Finance needs a formal quote, not just an email.", "Finance needs a formal quote", false, "not"},
		{"We cannot accept deliveries after 4 pm.", "accept deliveries after 4 pm", false, "cannot"},
		{"There's no one at the desk.", "at the desk", false, "no"},
	} {
		at := strings.Index(tc.source, tc.note)
		if at < 0 {
			t.Fatalf("%q not in %q", tc.note, tc.source)
		}
		whole, lacks := NoteCheck(tc.source, at, at+len(tc.note))
		var cues []string
		for _, q := range lacks {
			cues = append(cues, q.Word)
		}
		if whole != tc.whole || strings.Join(cues, ", ") != tc.lacks {
			t.Errorf("%q of %q: whole %v, lacks %q; want %v, %q", tc.note, tc.source, whole, strings.Join(cues, ", "), tc.whole, tc.lacks)
		}
	}
}

// TestScoreNotes reads a summary's notes back and scores them against the
// messages they came from.
func TestScoreNotes(t *testing.T) {
	msgs := []transcript.Message{
		{Role: transcript.RoleUser, Contents: []string{"Hi. The backup server is not the one we use for exports. Thanks for looking into this."}},
		{Role: transcript.RoleAssistant, Contents: []string{"I can see the issue; nobody has replied yet."}},
		{Role: transcript.RoleUser, Contents: []string{"Maya: I like fish, and I don't eat meat."}},
		{Role: transcript.RoleAssistant, Contents: []string{}, ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"go test ./..."}`}}},
		{Role: transcript.RoleTool, Name: "bash", ToolCallID: "call_1", Contents: []string{"=== RUN   TestA\n--- FAIL: TestA (0.00s)\n    a_test.go:42: got 3, want 4\nFAIL"}},
	}
	summary := "Earlier, a line per exchange (user → assistant; \"Name:\" names a speaker):\n" +
		"the backup server; use for exports; Thanks for looking into this. → I can see the issue; replied yet\n" +
		"Maya: I like fish; I don't eat meat\n" +
		"→ called bash({\"command\":\"go test ./...\"}); bash: === RUN TestA [4 lines]; a_test.go:42: got 3, want 4; something nobody said\n" +
		"\nFacts carried verbatim:\n- user: Thanks"
	notes := SummaryNotes(summary)
	var texts []string
	for _, n := range notes {
		side := "u"
		if n.Reply {
			side = "r"
		}
		if n.Call {
			side = "c"
		}
		texts = append(texts, side+":"+n.Text)
	}
	want := "u:the backup server|u:use for exports|u:Thanks for looking into this.|r:I can see the issue|r:replied yet|u:I like fish|u:I don't eat meat|" +
		"c:called bash({\"command\":\"go test ./...\"})|r:=== RUN TestA [4 lines]|r:a_test.go:42: got 3, want 4|r:something nobody said"
	if got := strings.Join(texts, "|"); got != want {
		t.Fatalf("SummaryNotes:\n got %s\nwant %s", got, want)
	}
	sc := ScoreNotes(msgs, notes)
	// Not verbatim: "the backup server" (the source says "The") and
	// "something nobody said". Flips: "use for exports" (lacks not),
	// "replied yet" (lacks nobody). Whole: "Thanks for looking into
	// this.", "I can see the issue", "I like fish", "I don't eat meat",
	// the result's first line, its error line.
	if sc.Notes != 10 || sc.NotVerbatim != 2 || sc.Flips != 2 || sc.Whole != 6 {
		t.Errorf("ScoreNotes: %d notes, %d not verbatim, %d flips, %d whole; want 10, 2, 2, 6 (%v, %v)", sc.Notes, sc.NotVerbatim, sc.Flips, sc.Whole, sc.FlipNotes, sc.Unfound)
	}
}

// TestLedgerFromBodies finds the ledger entries read from a tool body
// only, and the code names among them.
func TestLedgerFromBodies(t *testing.T) {
	msgs := []transcript.Message{
		{Role: transcript.RoleUser, Contents: []string{"Fix parseHeader in internal/header/parse.go; the failing test is TestParseHeader/empty."}},
		{Role: transcript.RoleAssistant, Contents: []string{}, ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"internal/header/parse.go"}`}}},
		{Role: transcript.RoleTool, Name: "read_file", ToolCallID: "call_1", Contents: []string{"    1\tpackage header\n    2\tfunc parseA(s string) error {\n    3\ttype Foo struct {\n    4\tfunc parseHeader(b []byte) {\n    5\t// retries: maxAttempts\n    6\t// parse.go TestParseHeader/empty", "The file internal/header/parse.go has been updated."}},
	}
	summary := "Earlier, a line per exchange (user → assistant):\nFix parseHeader\n\nFacts carried verbatim: (3 less used dropped)\n" +
		"- user: failing test TestParseHeader/empty | path internal/header/parse.go\n- tool read_file: func parseA | type Foo | maxAttempts | func parseHeader | buggy file internal/header/parse.go"
	entries := LedgerEntries(summary)
	if got := strings.Join(entries, "|"); got != "failing test TestParseHeader/empty|path internal/header/parse.go|func parseA|type Foo|maxAttempts|func parseHeader|buggy file internal/header/parse.go" {
		t.Fatalf("LedgerEntries: %s", got)
	}
	// Read from the body only: func parseA, type Foo, maxAttempts. Not:
	// func parseHeader ("func parseHeader" is in the body only, but its
	// shorter run "parseHeader" is said), the test and the path, said by
	// the user ("file internal/header/parse.go" is in a body only, but its
	// path is said).
	body, names, ex := BodyEntries(msgs, entries)
	if body != 3 || names != 2 {
		t.Errorf("BodyEntries: %d from bodies, %d names; want 3, 2 (%v)", body, names, ex)
	}
}

func TestErrorLines(t *testing.T) {
	msgs := []transcript.Message{
		{Role: transcript.RoleUser, Contents: []string{"panic: this is the user's, not a tool's"}},
		{Role: transcript.RoleTool, Contents: []string{"=== RUN   TestX\n--- FAIL: TestX (0.00s)\n    x_test.go:42: got 3, want 4\nFAIL\nFAIL\tm/x\t0.01s"}},
		{Role: transcript.RoleTool, Contents: []string{"Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nValueError: bad value 'x'"}},
		{Role: transcript.RoleTool, Contents: []string{"# m/pkg\npkg/a.go:12:5: undefined: foo\nexit status 1"}},
		{Role: transcript.RoleTool, Contents: []string{"log line\npanic: boom [recovered]\n\tpanic: boom\nfatal: not a git repository\nError: old string not found\npkg/a.go:12:5: undefined: foo"}},
		{Role: transcript.RoleTool, Contents: []string{"internal/a.go:120:\tv, err := parse(line)\nok  \tm/x\t0.01s"}},
	}
	want := "x_test.go:42: got 3, want 4|ValueError: bad value 'x'|pkg/a.go:12:5: undefined: foo|panic: boom [recovered]|fatal: not a git repository|Error: old string not found"
	if got := strings.Join(ErrorLines(msgs), "|"); got != want {
		t.Errorf("ErrorLines:\n got %s\nwant %s", got, want)
	}
}
