package domains

import (
	"fmt"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// afact is an identifier of a session: how it is drawn, and either the
// tool call whose result first shows it (show), or none when the user
// gives it in the prompt (asks) or the assistant makes it up. says are the
// assistant's sentences that name it; all templates use {L} and {X}.
type afact struct {
	kind   string
	labels []string
	gen    func(s *session) string
	show   func(s *session, x string) (transcript.ToolCall, string, bool)
	asks   []string
	says   []string
}

// prompted are the identifiers a user gives with a task.
var prompted = []afact{
	{"test name", []string{"failing test", "broken test"}, (*session).test, nil,
		[]string{"The {L} is {X}.", "{X} is the {L}; it broke after yesterday's merge."}, []string{"The {L} {X} passes now."}},
	{"branch", []string{"feature branch", "working branch"},
		func(s *session) string {
			return pick(s.r, []string{"fix/", "feat/", "chore/"}) + s.noun() + "-" + pick(s.r, []string{"parsing", "limits", "timeouts", "validation", "races"})
		}, nil,
		[]string{"Please do the work on the {L} {X}.", "Use the {L} {X}; it's already pushed."}, []string{"Everything is on the {L} {X}."}},
	{"url", []string{"bug report link", "bug report"},
		func(s *session) string { return "https://github.com/" + s.p.repo + "/issues/" + digits(s.r, 4) }, nil,
		[]string{"The {L} is {X}.", "Background is in the {L} at {X}."}, []string{"I left a comment on the {L} {X}."}},
	{"issue number", []string{"issue number", "tracking issue"}, func(s *session) string { return "#" + digits(s.r, 4) }, nil,
		[]string{"Please reference the {L} {X} in the commit message.", "This is {L} {X} on the board."}, []string{"The commit message references the {L} {X}."}},
	{"url", []string{"failing ci run", "ci run link"},
		func(s *session) string {
			return fmt.Sprintf("https://ci.example.dev/%s/runs/%s?attempt=%d", s.p.repo, digits(s.r, 6), between(s.r, 1, 3))
		}, nil,
		[]string{"See the {L} at {X}.", "The {L} is {X}; the full log is there."}, []string{"The {L} {X} should go green on the next push."}},
}

// discovered are the identifiers a tool result reveals.
var discovered = []afact{
	{"error", []string{"compiler error", "build error"},
		func(s *session) string {
			return fmt.Sprintf(pick(s.r, []string{"undefined: %s%s", "too many arguments in call to %s%s"}), s.fn(), pick(s.r, []string{"Line", "Opts", "Locked", "Bytes"}))
		},
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			f := s.file()
			return s.newCall("bash", "command", "go build ./..."), fmt.Sprintf("# %s/internal/%s\n%s:%d:%d: %s\n%s:%d:%d: declared and not used: n\nexit status 1",
				s.module, s.focus, f, between(s.r, 10, 300), between(s.r, 2, 40), x, f, between(s.r, 10, 300), between(s.r, 2, 20)), true
		}, nil,
		[]string{"The {L} is `{X}`, so something still uses the old name.", "Build is red: the {L} is `{X}`."}},
	{"error", []string{"panic message", "runtime panic"},
		func(s *session) string {
			k := between(s.r, 2, 64)
			return pick(s.r, []string{fmt.Sprintf("runtime error: index out of range [%d] with length %d", k, k),
				fmt.Sprintf("runtime error: slice bounds out of range [:%d] with capacity %d", k+1, k),
				"runtime error: invalid memory address or nil pointer dereference", "assignment to entry in nil map"})
		},
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			t := "Test" + title(pick(s.r, verbs)) + title(s.focus)
			var sb strings.Builder
			fmt.Fprintf(&sb, "=== RUN   %s\n--- FAIL: %s (0.00s)\npanic: %s [recovered]\n\tpanic: %s\n\ngoroutine %d [running]:\n", t, t, x, x, between(s.r, 6, 90))
			sb.WriteString("testing.tRunner.func1.2({0x6a1f20, 0xc000126030})\n\t/usr/local/go/src/testing/testing.go:1734 +0x21c\n")
			for range between(s.r, 3, 7) {
				fmt.Fprintf(&sb, "%s/internal/%s.%s(...)\n\t/home/dev/%s/%s:%d +0x%s\n", s.module, s.focus, s.fn(), s.p.repo, s.file(), between(s.r, 10, 400), hex(s.r, 3))
			}
			fmt.Fprintf(&sb, "testing.tRunner(0xc0001a2b60, 0x7b3d48)\n\t/usr/local/go/src/testing/testing.go:1792 +0xf4\nFAIL\t%s/internal/%s\t0.%03ds\nFAIL", s.module, s.focus, s.r.IntN(1000))
			return s.newCall("run_tests", "filter", t), sb.String(), false
		}, nil,
		[]string{"The {L} is `{X}`; the stack trace points into {file}.", "So the {L} is `{X}`, raised from {fn}."}},
	{"sha", []string{"regression commit", "offending commit"}, (*session).sha,
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			f := s.file()
			subjects := []string{"%s: trim values before splitting", "%s: reuse buffers in the hot path", "%s: drop legacy fallback", "ci: bump Go toolchain",
				"%s: handle context cancellation", "docs: explain %s limits", "%s: faster lookup", "Merge pull request #%d from dev/cleanup"}
			var lines []string
			for range between(s.r, 8, 20) {
				lines = append(lines, s.sha()+" "+fmt.Sprintf(pick(s.r, subjects), s.focus))
			}
			lines[s.r.IntN(len(lines))] = x + " " + s.focus + ": simplify " + s.fn()
			return s.newCall("bash", "command", "git log --oneline -n 20 -- "+f), strings.Join(lines, "\n"), false
		}, nil,
		[]string{"The {L} is {X}; it changed how {fn} treats empty values.", "Git history points to {X} as the {L}."}},
	{"path", []string{"file with the bug", "buggy file"}, (*session).file,
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			fn := s.fn()
			return s.newCall("grep", "pattern", fn, "path", "internal/"), s.grepOut(fn, fmt.Sprintf("%s:%d:\tv := %s(b[i:])", x, between(s.r, 8, 400), fn)), false
		}, nil,
		[]string{"So the {L} is {X}: {fn} never checks its input.", "{X} is the {L}, the other callers look fine."}},
	{"port", []string{"listening port", "dev server port"}, func(s *session) string { return s.port },
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			yaml := fmt.Sprintf("# dev settings, not for production\nlisten_addr: \":%s\"\nmetrics_addr: \":9090\"\nlog_level: debug\nread_timeout: 5s\nwrite_timeout: 10s\n%s:\n  max_value_bytes: 8192\n  strict: true\nstorage:\n  dsn: postgres://dev:dev@localhost/%s?sslmode=disable\n", x, s.focus, s.focus)
			return s.newCall("read_file", "path", "config/dev.yaml"), numbered(yaml), false
		}, nil,
		[]string{"The {L} is {X} in the dev config.", "{X} is the {L}, so the curl checks go there."}},
	{"version", []string{"pinned dependency version", "pinned version"},
		func(s *session) string {
			return fmt.Sprintf("v%d.%d.%d", between(s.r, 1, 3), between(s.r, 10, 70), between(s.r, 1, 9))
		},
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			mod := fmt.Sprintf("module %s\n\ngo 1.26\n\nrequire (\n", s.module)
			k := s.r.IntN(len(deps))
			for i, d := range deps {
				v := fmt.Sprintf("v0.%d.%d", between(s.r, 1, 9), s.r.IntN(10))
				if i == k {
					v = x
				}
				mod += "\t" + d + " " + v + "\n"
			}
			return s.newCall("read_file", "path", "go.mod"), numbered(mod + ")\n"), false
		}, nil,
		[]string{"The {L} is {X}, which predates the API the fix needs.", "go.mod has {X} as the {L}."}},
	{"test name", []string{"second failing test", "other failing test"}, (*session).test,
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			top := x[:strings.IndexByte(x, '/')]
			return s.newCall("run_tests", "filter", top), s.testOut(top, x, "got <nil> error, want errSyntax"), false
		}, nil,
		[]string{"There's a {L} too: {X}.", "{X} is the {L}; same root cause, I think."}},
	{"error", []string{"server error message", "error response"},
		func(s *session) string {
			return fmt.Sprintf(pick(s.r, []string{"%s value exceeds %d bytes", "invalid %s signature (key %d)", "upstream %s timed out after %ds"}), s.noun(), between(s.r, 30, 9000))
		},
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			out := fmt.Sprintf("HTTP/1.1 500 Internal Server Error\nContent-Type: application/json\nX-Request-Id: %s\nDate: Tue, 14 Apr 2026 09:%02d:11 GMT\nContent-Length: %d\n\n{\"error\":\"%s\",\"request_id\":\"%s\"}",
				hex(s.r, 16), s.r.IntN(60), len(x)+50, x, hex(s.r, 8))
			return s.newCall("bash", "command", "curl -s -i localhost:"+s.port+"/v1/"+s.focus), out, false
		}, nil,
		[]string{"The {L} is `{X}`, with status 500.", "The {L} says `{X}`."}},
	{"env var", []string{"env var", "environment variable"},
		func(s *session) string { return s.p.env + "_" + pick(s.r, envWords) },
		func(s *session, x string) (transcript.ToolCall, string, bool) {
			extra := fmt.Sprintf("%s:%d:\tv := os.Getenv(%q)", s.file(), between(s.r, 8, 200), x)
			return s.newCall("grep", "pattern", "os.Getenv", "path", "."), s.grepOut("os.Getenv", extra), false
		}, nil,
		[]string{"The {L} is {X}; nothing sets it in the test environment.", "{X} is the {L} the code reads at startup."}},
}

var (
	tasks = []string{
		"{fn} in {pkg} returns the wrong result for empty input and CI is red.",
		"The {noun} package panics on malformed data in production; please find out why and fix it.",
		"Our {noun} endpoint regressed: requests that used to work now fail with a 500.",
		"Please add input validation to {fn} and cover it with table tests.",
		"Upgrade the dependencies and fix whatever breaks in {pkg}.",
		"Make {fn} safe for concurrent use; the race detector complains about it."}
	rules = []string{"", "", "Run the tests with -race before you finish, and don't push anything.",
		"Keep the diff small and don't touch the vendored code.", "Explain what you changed at the end, briefly."}
	followUps = []string{"Thanks, that works. Next: ", "Good. Another one: ", "Merged, thanks. Next one: ", "Nice. Next task: "}
	// working is what the assistant says before a call, by tool (a lookup,
	// never iterated); often nothing.
	working = map[string][]string{
		"read_file": {"", "Let me look at {file} first.", "Reading the surrounding code.", "I need to see how {fn} is used here.", "Let me check the test table."},
		"grep":      {"", "Checking where {fn} is called.", "I'll search for other callers before changing the signature.", "Looking for every use of this."},
		"edit_file": {"", "Trying a narrower fix.", "Applying the change to {file}.", "Guarding the empty case.", "Adjusting the test expectation."},
		"run_tests": {"", "Running the package tests again.", "Now the tests for {pkg}.", "Let me rerun just that test.", "Checking nothing else broke."},
		"bash":      {"", "That compiled; let me check the diff.", "Rebuilding.", "Looking at the working tree.", "Quick sanity check."},
	}
	done = []string{"Done. {fn} now handles the empty case and the {pkg} tests pass, including with -race.",
		"All green now. The change is limited to {file} plus a regression test.",
		"Fixed. I kept the public API unchanged and added table tests in {pkg}."}
)

// unused picks a fact kind not in skip, one whose labels are not all
// taken yet if it can, so that a session rarely needs "second ..." labels.
func (s *session) unused(kinds []afact, skip []*afact) *afact {
	var free, other []*afact
	for k := range kinds {
		switch a := &kinds[k]; {
		case slices.Contains(skip, a):
		case slices.ContainsFunc(a.labels, func(l string) bool { return !slices.Contains(s.labels, l) }):
			free = append(free, a)
		default:
			other = append(other, a)
		}
	}
	if len(free) == 0 {
		return pick(s.r, other)
	}
	return pick(s.r, free)
}

// recap are the summary's sentences about an identifier found earlier.
var recap = []string{"For the record, the {L} was {X}.", "As noted, the {L} is {X}."}

// fact draws a fresh identifier for a, a label for it, and asks a
// question about it; ok is false when none is left (a project has few
// files, and one dev server port).
func (s *session) fact(a afact) (label, x string, ok bool) {
	if x, _, ok = s.fresh(func() (string, string) { return a.gen(s), "" }); !ok {
		return "", "", false
	}
	label = s.label(a.labels)
	s.ask(label, x, a.kind)
	return label, x, true
}
