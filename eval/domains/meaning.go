package domains

// Conversations that test meaning, added to the two domains (issue 37):
// support chats with negated statements and standing instructions hidden
// in the chatter, and agent sessions whose failing tool results carry
// their error line past the first line, with file bodies full of
// function and type names. Each is an ordinary chat or session of its
// domain (drawn from streams of its own, so the original conversations do
// not change), then planted with those sentences and tool calls from one
// more stream.

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Kinds of the questions that are not answers: an instruction must be in
// the final view whole; the answer columns leave these out.
const KindInstruction = "instruction"

// action is something a standing instruction asks for or forbids: its
// verb phrase and its -ing form.
type action struct{ base, ing string }

var supportActions = []action{
	{"send the invoices to our finance mailbox", "sending the invoices to our finance mailbox"},
	{"call me on my mobile", "calling me on my mobile"},
	{"schedule deliveries for a Monday", "scheduling deliveries for a Monday"},
	{"mention the old contract in emails to our director", "mentioning the old contract in emails to our director"},
	{"leave parcels with the neighbours", "leaving parcels with the neighbours"},
	{"book aisle seats for our team", "booking aisle seats for our team"},
	{"share the case details with our reseller", "sharing the case details with our reseller"},
	{"use the old billing address", "using the old billing address"},
	{"copy my assistant on anything about the renewal", "copying my assistant on anything about the renewal"},
	{"order the garlic bread", "ordering the garlic bread"},
	{"print the prices on the packing slip", "printing the prices on the packing slip"},
	{"reply from the no-reply address", "replying from the no-reply address"},
	{"close the case without asking me first", "closing the case without asking me first"},
	{"ship the monitors in one box", "shipping the monitors in one box"},
}

var agentActions = []action{
	{"run the integration tests against production", "running the integration tests against production"},
	{"commit the generated mocks", "committing the generated mocks"},
	{"rename exported functions", "renaming exported functions"},
	{"push to main directly", "pushing to main directly"},
	{"add a dependency without asking me", "adding a dependency without asking me"},
	{"use panics for error handling", "using panics for error handling"},
	{"log request bodies", "logging request bodies"},
	{"reformat files you did not change", "reformatting files you did not change"},
	{"write the changelog entry", "writing the changelog entry"},
	{"squash the fixup commits", "squashing the fixup commits"},
}

var (
	// conditions an instruction may carry; they are part of it.
	conditions = []string{"unless I say otherwise", "after 6 pm", "before the contract is signed", "when the order is over 500 euros",
		"until the audit is finished", "if the tracking shows a delay", "while the migration is running", "on Fridays"}
	// reasons a prohibition may give after a comma.
	reasons = []string{"it arrives cold", "nobody reads that inbox", "they never pass it on", "it only causes confusion",
		"we lost a whole day to that last time", "the warehouse can't handle it"}
	// forms of an instruction: {a} the verb phrase, {ing} its -ing form.
	positiveForms = []string{"Always {a}.", "Please {a}.", "Make sure to {a}.", "Make sure you {a}.", "Remember to {a}.",
		"You must {a}.", "You should {a}.", "You need to {a}."}
	negativeForms = []string{"Do not {a}.", "Don't {a}.", "Never {a}.", "Stop {ing}.", "Avoid {ing}.", "You must not {a}.",
		"You shouldn't {a}.", "Please don't {a}."}
	// leadIns hide an instruction among chatter.
	leadIns = []string{"Oh, one more thing.", "Before I forget.", "While I think of it.", "Something for the notes."}
)

// instruction draws one standing instruction from acts: a positive or
// negative form, sometimes with a condition, a prohibition sometimes with
// its reason.
func instruction(r *rand.Rand, acts []action) string {
	a := pick(r, acts)
	neg := r.IntN(2) == 0
	form := pick(r, positiveForms)
	if neg {
		form = pick(r, negativeForms)
	}
	s := strings.TrimSuffix(fill(form, "{a}", a.base, "{ing}", a.ing), ".")
	switch {
	case r.IntN(2) == 0:
		s += " " + pick(r, conditions)
	case neg && r.IntN(2) == 0:
		s += ", " + pick(r, reasons)
	}
	return s + "."
}

// negations are statements whose meaning turns on a negation cue; each
// slot {a}..{d} is filled from the lists after it.
var negations = []struct {
	tmpl  string
	slots [][]string
}{
	{"The {a} is not the one we use for {b}.", [][]string{{"backup server", "old laptop", "shared mailbox", "second warehouse", "grey van"}, {"exports", "payroll", "customer orders", "the weekly reports"}}},
	{"No {a} has access to the {b}.", [][]string{{"contractor", "intern", "reseller", "temp"}, {"audit logs", "billing portal", "shared drive", "admin console"}}},
	{"We won't {a} until {b}.", [][]string{{"move the servers", "pay the deposit", "renew the licences", "sign off the order"}, {"the lease is signed", "the audit is done", "the credit note arrives", "legal has read it"}}},
	{"Nobody on our team has {a} since {b}.", [][]string{{"used the old portal", "touched the router", "changed the password", "opened that account"}, {"March", "the merger", "the last update", "the office move"}}},
	{"I never got the {a} you mentioned.", [][]string{{"credit note", "return label", "confirmation email", "revised quote"}}},
	{"There's nothing wrong with the {a}, the {b} is what fails.", [][]string{{"printer", "router", "card reader", "docking station"}, {"driver", "power supply", "cable", "firmware"}}},
	{"The {a} doesn't work without the {b}.", [][]string{{"scanner", "new badge", "mobile app", "label printer"}, {"admin password", "desk dongle", "VPN", "old adapter"}}},
	{"Neither the {a} nor the {b} has arrived.", [][]string{{"invoice", "replacement", "manual", "spare key"}, {"receipt", "charger", "warranty card", "cable"}}},
	{"I don't think the {a} was ever {b}.", [][]string{{"firmware", "refund", "order", "complaint"}, {"installed", "processed", "dispatched", "logged"}}},
	{"We cannot accept deliveries {a}.", [][]string{{"after 4 pm", "on weekends", "at the front desk", "without a booking"}}},
	{"None of the {a} were {b}.", [][]string{{"chairs", "cartridges", "monitors", "keyboards"}, {"assembled", "labelled", "tested", "insured"}}},
	{"If the {a} isn't {b} by Friday, we will cancel the order.", [][]string{{"replacement", "refund", "engineer", "quote"}, {"here", "approved", "booked", "signed"}}},
	{"It's not that the {a} is slow, it just stops at night.", [][]string{{"portal", "sync", "backup", "connection"}}},
	{"The {a} has no {b} and the {c} was never {d}.", [][]string{{"new account", "second site", "test system"}, {"admin user", "billing contact", "backup plan"}, {"old one", "first order", "trial"}, {"closed", "paid", "cancelled"}}},
}

// negation draws one negated statement.
func negation(r *rand.Rand) string {
	n := pick(r, negations)
	kv := []string{}
	for k, slot := range n.slots {
		kv = append(kv, "{"+string(rune('a'+k))+"}", pick(r, slot))
	}
	return fill(n.tmpl, kv...)
}

// SupportMeaning returns n support chats like Support's (a stream of
// their own), each planted with 3-5 standing instructions of the
// customer's, hidden in the chatter and asked for as questions of kind
// KindInstruction, and 4-7 negated statements by either side.
func SupportMeaning(seed int64, n int) []Conversation {
	out := make([]Conversation, n)
	for i := range out {
		c := supportChatFrom(stream(seed, 5, i), stream(seed, 6, i), i, fmt.Sprintf("support-meaning-%d-%02d", seed, i))
		r := stream(seed, 7, i)
		var said []string
		for range between(r, 3, 5) {
			at := plantAt(r, c, true)
			s := fresh(r, c, said, func() string { return instruction(r, supportActions) })
			if at < 0 || s == "" {
				continue
			}
			said = append(said, s)
			if r.IntN(3) == 0 {
				s = pick(r, leadIns) + " " + s
			}
			c.Messages[at].Contents[0] = insertSentence(r, c.Messages[at].Contents[0], s)
			c.Questions = append(c.Questions, Question{Label: "standing instruction", Answer: said[len(said)-1], Kind: KindInstruction, Turn: at})
		}
		for range between(r, 4, 7) {
			at := plantAt(r, c, r.IntN(3) > 0)
			s := fresh(r, c, said, func() string { return negation(r) })
			if at < 0 || s == "" {
				continue
			}
			said = append(said, s)
			c.Messages[at].Contents[0] = insertSentence(r, c.Messages[at].Contents[0], s)
		}
		sortQuestions(&c)
		out[i] = c
	}
	return out
}

// plantAt picks a message of the user (or the other side) between the
// first exchange and the last, with contents; -1 if there is none.
func plantAt(r *rand.Rand, c Conversation, user bool) int {
	var at []int
	for i, m := range c.Messages[min(2, len(c.Messages)):max(2, len(c.Messages)-2)] {
		if (m.Role == transcript.RoleUser) == user && m.Role != transcript.RoleTool && len(m.Contents) > 0 {
			at = append(at, i+2)
		}
	}
	if len(at) == 0 {
		return -1
	}
	return pick(r, at)
}

// fresh draws a sentence from gen not said yet that holds no answer of a
// question already asked (it would move that question's turn), or "".
func fresh(r *rand.Rand, c Conversation, said []string, gen func() string) string {
	for range 50 {
		s := gen()
		if slices.Contains(said, s) || slices.ContainsFunc(c.Questions, func(q Question) bool { return strings.Contains(s, q.Answer) }) {
			continue
		}
		return s
	}
	return ""
}

func sortQuestions(c *Conversation) {
	slices.SortStableFunc(c.Questions, func(a, b Question) int { return a.Turn - b.Turn })
}

// AgentMeaning returns n agent sessions like Agent's (a stream of their
// own), each planted with 3-6 failing tool calls whose error line is past
// the first line of the result (Go test output, a Python traceback,
// compiler diagnostics, a panic, git's fatal:), 2-4 reads of files full of
// func and type declarations nobody names, and a standing instruction
// in one or two of the user's prompts.
func AgentMeaning(seed int64, n int) []Conversation {
	out := make([]Conversation, n)
	for i := range out {
		c := agentSessionFrom(stream(seed, 8, i), stream(seed, 9, i), i, fmt.Sprintf("agent-meaning-%d-%02d", seed, i))
		r := stream(seed, 10, i)
		p := agentProject(c)
		k := 0
		plant := func(call transcript.ToolCall, out string, isErr bool) {
			k++
			call.ID = fmt.Sprintf("call_m%d", k)
			at := toolBlockEnd(r, c)
			if at < 0 {
				return
			}
			c.Messages = slices.Insert(c.Messages, at,
				transcript.Message{Role: transcript.RoleAssistant, Contents: []string{}, ToolCalls: []transcript.ToolCall{call}},
				transcript.Message{Role: transcript.RoleTool, Contents: []string{out}, ToolCallID: call.ID, Name: call.Name, IsError: isErr})
		}
		for range between(r, 3, 6) {
			plant(failing(r, p))
		}
		for range between(r, 2, 4) {
			plant(declarations(r, p))
		}
		var said []string
		for range between(r, 1, 2) {
			at := plantAt(r, c, true)
			if at < 0 || c.Messages[at].Role != transcript.RoleUser {
				at = 0
			}
			s := fresh(r, c, said, func() string { return instruction(r, agentActions) })
			if s == "" {
				continue
			}
			said = append(said, s)
			c.Messages[at].Contents[0] = insertSentence(r, c.Messages[at].Contents[0], s)
		}
		for k := range c.Questions { // messages moved: each answer's first turn again
			c.Questions[k].Turn = firstTurn(c.Messages, c.Questions[k].Answer)
		}
		for _, s := range said {
			c.Questions = append(c.Questions, Question{Label: "standing instruction", Answer: s, Kind: KindInstruction, Turn: firstTurn(c.Messages, s)})
		}
		sortQuestions(&c)
		out[i] = c
	}
	return out
}

// agentProject is the module and a package of a session, read from its
// first commit or test output.
func agentProject(c Conversation) (p struct{ module, pkg string }) {
	p.module, p.pkg = "github.com/acme/httpx", "header"
	re := regexp.MustCompile(`(github\.com/[\w-]+/[\w-]+)/internal/(\w+)`)
	for _, m := range c.Messages {
		for _, s := range m.Contents {
			if x := re.FindStringSubmatch(s); x != nil {
				p.module, p.pkg = x[1], x[2]
				return p
			}
		}
	}
	return p
}

// toolBlockEnd picks a place just after a tool result that an assistant
// message follows: an assistant call and its result fit there.
func toolBlockEnd(r *rand.Rand, c Conversation) int {
	var at []int
	for i := 1; i < len(c.Messages); i++ {
		if c.Messages[i-1].Role == transcript.RoleTool && c.Messages[i].Role == transcript.RoleAssistant {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return -1
	}
	return pick(r, at)
}

var (
	pyErrors = []string{"ValueError: invalid literal for int() with base 10: '%s'", "KeyError: '%s'", "TypeError: expected str, bytes or os.PathLike object, not %s",
		"FileNotFoundError: [Errno 2] No such file or directory: '%s.csv'"}
	panics = []string{"panic: assignment to entry in nil map", "panic: runtime error: index out of range [{k}] with length {k}",
		"panic: send on closed channel", "panic: sync: negative WaitGroup counter"}
	fatals = []string{"fatal: '{b}' is already checked out at '/home/dev/wt-{p}'", "fatal: a branch named '{b}' already exists",
		"fatal: refusing to merge unrelated histories ({b})", "fatal: bad revision '{b}~3'"}
)

// failing is one tool call that fails, with its error line(s) after the
// first line of its result, padded past 300 bytes.
func failing(r *rand.Rand, p struct{ module, pkg string }) (transcript.ToolCall, string, bool) {
	pkg, word := p.pkg, pick(r, subtests)
	fn := pick(r, verbs) + title(pkg) + pick(r, []string{"", "Line", "Value", "All"})
	test := "Test" + title(fn)
	var b strings.Builder
	switch r.IntN(5) {
	case 0: // go test: --- FAIL then the failing assertion
		for _, sub := range r.Perm(len(subtests))[:between(r, 3, 6)] {
			fmt.Fprintf(&b, "=== RUN   %s/%s\n--- PASS: %s/%s (0.00s)\n", test, subtests[sub], test, subtests[sub])
		}
		got := between(r, 0, 9)
		msg := pick(r, []string{fmt.Sprintf("got %d, want %d", got, got+1), fmt.Sprintf("%s(%q) = %q, want %q", fn, word, "", word),
			fmt.Sprintf("unexpected error: %s: line %d: invalid %s", pkg, between(r, 2, 90), word)})
		fmt.Fprintf(&b, "--- FAIL: %s (0.%02ds)\n    %s_test.go:%d: %s\nFAIL\nFAIL\t%s/internal/%s\t0.%03ds\nFAIL", test, r.IntN(100), pkg, between(r, 12, 400), msg, p.module, pkg, r.IntN(1000))
		return transcript.ToolCall{Name: "run_tests", Arguments: jsonObject("filter", test)}, b.String(), false
	case 1: // a Python traceback ending in its exception
		script := "scripts/" + pick(r, []string{"gen_fixtures", "load_sample", "migrate_rows", "bench_report"}) + ".py"
		fmt.Fprintf(&b, "Traceback (most recent call last):\n  File %q, line %d, in <module>\n    main()\n", script, between(r, 80, 140))
		for _, f := range []string{"main", "load", "parse_row"} {
			fmt.Fprintf(&b, "  File %q, line %d, in %s\n    rows = %s(path)\n", script, between(r, 10, 79), f, f)
		}
		fmt.Fprintf(&b, pick(r, pyErrors), word)
		return transcript.ToolCall{Name: "bash", Arguments: jsonObject("command", "python3 "+script)}, b.String(), true
	case 2: // compiler diagnostics after the package line
		fmt.Fprintf(&b, "# %s/internal/%s\n", p.module, pkg)
		fmt.Fprintf(&b, "internal/%s/%s.go:%d:%d: undefined: %s%s\n", pkg, pick(r, verbs[:5]), between(r, 10, 300), between(r, 2, 40), fn, pick(r, []string{"Opts", "Locked", "Bytes"}))
		fmt.Fprintf(&b, "internal/%s/%s.go:%d:%d: cannot use %s (variable of type int) as string value in argument to %s\n", pkg, pkg, between(r, 10, 300), between(r, 2, 40), word, fn)
		b.WriteString("note: module requires Go 1.26\nexit status 1\nmake: *** [Makefile:14: build] Error 1")
		return transcript.ToolCall{Name: "bash", Arguments: jsonObject("command", "make build")}, b.String(), true
	case 3: // a panic after some log lines
		fmt.Fprintf(&b, "2026/04/14 09:%02d:11 starting %s worker pool (4 workers)\n2026/04/14 09:%02d:11 loaded %d items from testdata/%s.json\n", r.IntN(60), pkg, r.IntN(60), between(r, 20, 900), pkg)
		b.WriteString(fill(pick(r, panics), "{k}", fmt.Sprint(between(r, 2, 64))) + "\n\ngoroutine 1 [running]:\n")
		fmt.Fprintf(&b, "%s/internal/%s.%s(...)\n\t/home/dev/src/internal/%s/%s.go:%d +0x1d\nmain.main()\n\t/home/dev/src/cmd/%s/main.go:%d +0x85\nexit status 2", p.module, pkg, fn, pkg, pkg, between(r, 10, 300), pkg, between(r, 10, 90))
		return transcript.ToolCall{Name: "bash", Arguments: jsonObject("command", "go run ./cmd/"+pkg)}, b.String(), true
	}
	branch := "fix/" + pkg + "-" + word
	fmt.Fprintf(&b, "Preparing worktree (checking out '%s')\nEnumerating objects: %d, done.\nCounting objects: 100%% (%d/%d), done.\n", branch, between(r, 20, 90), between(r, 5, 20), between(r, 5, 20))
	fmt.Fprintf(&b, "Compressing objects: 100%% (%d/%d), done.\n", between(r, 2, 9), between(r, 2, 9))
	b.WriteString(fill(pick(r, fatals), "{b}", branch, "{p}", pkg))
	return transcript.ToolCall{Name: "bash", Arguments: jsonObject("command", "git worktree add ../wt-"+pkg+" "+branch)}, b.String(), true
}

// declarations is a read of a file full of func and type declarations
// whose names no one says.
func declarations(r *rand.Rand, p struct{ module, pkg string }) (transcript.ToolCall, string, bool) {
	path := "internal/" + p.pkg + "/" + pick(r, []string{"table", "registry", "codec", "lexer"}) + ".go"
	src := []string{"package " + p.pkg, "", "import (", "\t\"errors\"", "\t\"strconv\"", ")"}
	suffixes := []string{"A", "B", "C", "D", "E", "F", "G", "H", "Alpha", "Beta", "Gamma", "Delta", "Raw", "Fast", "Slow", "Legacy"}
	for _, k := range r.Perm(len(suffixes))[:between(r, 8, 14)] {
		name := pick(r, verbs) + suffixes[k]
		typ := title(p.pkg) + suffixes[k]
		src = append(src, "",
			fmt.Sprintf("type %s struct {\n\tKey   string\n\tValue int\n}", typ), "",
			fmt.Sprintf("func %s(s string) (%s, error) {\n\tk, v, ok := cut(s)\n\tif !ok {\n\t\treturn %s{}, errors.New(%q)\n\t}\n\tn, err := strconv.Atoi(v)\n\treturn %s{Key: k, Value: n}, err\n}", name, typ, typ, "bad "+p.pkg, typ))
	}
	return transcript.ToolCall{Name: "read_file", Arguments: jsonObject("path", path)}, numbered(strings.Join(src, "\n")), false
}

// errorLine matches the lines of a tool result that say what failed: a
// panic, git's or a tool's fatal: / error: / Error:, a compiler
// diagnostic (file:line:col: ...), a failing test's assertion (an
// indented file_test.go:line: ...), a Python exception (ValueError: ...).
// Not the lines that only say that something failed ("--- FAIL: TestX",
// "FAIL", "exit status 1", "Traceback (most recent call last):"), nor a
// repeat of a panic indented under it.
var errorLine = regexp.MustCompile(`^(?:panic: |fatal: |error: |Error: |[\w./-]+\.\w+:\d+:\d+: |\s*[\w./-]+_test\.go:\d+: |[A-Z]\w*(?:Error|Exception): )`)

// ErrorLines are the error lines of the tool results of msgs, trimmed,
// each once.
func ErrorLines(msgs []transcript.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role != transcript.RoleTool {
			continue
		}
		for _, c := range m.Contents {
			for _, l := range strings.Split(c, "\n") {
				if errorLine.MatchString(l) {
					if l = strings.TrimSpace(l); !slices.Contains(out, l) {
						out = append(out, l)
					}
				}
			}
		}
	}
	return out
}
