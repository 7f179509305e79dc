package facts

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// The sections of an agent session's summary: a span with tool calls is
// kept the way the agent CLIs keep one (Claude Code keeps every user
// message and the files touched, Codex the recent user messages, Gemini CLI
// and opencode mask old tool output): what the user asked, verbatim; the
// files read, written or edited; the commands run with their outcome; the
// error lines of the tool results. They are read from the records, not
// from what a summarizer writes, and carried from summary to summary in
// aux.sections, as the ledger is, so summarizing again loses none of them
// but by their bounds.
//
// Bounds, each shown when it drops something ("3 left out"):
//   - Requests: the first and the latest always (each up to
//     maxRequestBytes), the others newest first while the section stays
//     within RequestsShare of the budget;
//   - Files: the MaxFiles most recently touched;
//   - Commands: the MaxCommands newest, each command up to
//     maxCommandBytes;
//   - Errors: the MaxErrors newest distinct lines, ErrorsPerResult of a
//     result, each up to maxErrorLine bytes;
//   - all four: SectionsShare of the budget; past it the oldest commands
//     go first, then the oldest files, then the requests but the first
//     and the latest, then the oldest errors but the ErrorsFloor newest,
//     which stay, as the first and the latest request do, whatever the
//     budget (a span of a few hundred tokens gets a summary of 100: its
//     error would not fit in half of it).
const (
	MaxFiles    = 20
	MaxCommands = 10
	// MaxErrors: 10 kept 0.716 of the agent sessions' error lines on make
	// eval, 40 keeps 0.970 and sends 0.064 of their tokens as 10 did.
	MaxErrors   = 40
	ErrorsFloor = 3
	// RequestsShare: the requests get up to a quarter of the budget. An
	// agent session's user messages are a few hundredths of its tokens
	// (the rest is tool output), so a quarter of a budget of 0.116 of the
	// covered tokens holds all of them but in prompt-heavy sessions, as
	// Claude Code keeps every user message; where they are more (a user
	// who pastes logs) the newest win, as under Codex's 20k-token cap on
	// the recent user messages. A quarter is also what the notes are sure
	// of (notesShare): the user's words never crowd out the gist of the
	// work.
	RequestsShare = 4
	// SectionsShare: the sections take at most half the budget; the
	// notes and the ledger keep the other half.
	SectionsShare   = 2
	maxRequestBytes = 4000
	maxCommandBytes = 200
	maxOutcomeBytes = 100
	// held bounds what is held while the records stream by: the bytes of
	// the requests but the first, and the files, commands and errors.
	heldRequestBytes = 64 << 10
	heldFiles        = 256
	heldPending      = 4096
)

// Sections are an agent session's sections, as carried in aux.sections.
type Sections struct {
	// First is the first request; Requests the later ones, in order, the
	// last the latest.
	First           string    `json:"first,omitempty"`
	Requests        []string  `json:"requests,omitempty"`
	RequestsDropped int       `json:"requestsDropped,omitempty"`
	Files           []File    `json:"files,omitempty"`
	FilesDropped    int       `json:"filesDropped,omitempty"`
	Commands        []Command `json:"commands,omitempty"`
	CommandsDropped int       `json:"commandsDropped,omitempty"`
	Errors          []Error   `json:"errors,omitempty"`
	ErrorsDropped   int       `json:"errorsDropped,omitempty"`
	// Tools: the span or one before it had tool calls. Before the first,
	// only First is carried, and nothing is shown.
	Tools bool `json:"tools,omitempty"`
}

// File is a path and what was done to it, in the order first done, each
// with how often ("read", "edited").
type File struct {
	Path string `json:"path"`
	Did  []Op   `json:"did"`
}

// Op is one thing done to a file and how often.
type Op struct {
	Op string `json:"op"`
	N  int    `json:"n,omitempty"`
}

// Command is a command run (or a tool called that is not a file's read or
// write) and its outcome.
type Command struct {
	Cmd     string `json:"cmd"`
	Outcome string `json:"outcome,omitempty"`
}

// Error is an error line of a tool result and the call it came from.
type Error struct {
	From string `json:"from,omitempty"`
	Line string `json:"line"`
}

// Empty reports whether s holds nothing.
func (s *Sections) Empty() bool {
	return s.First == "" && len(s.Requests) == 0 && len(s.Files) == 0 && len(s.Commands) == 0 && len(s.Errors) == 0
}

// SectionBuilder builds the sections over the records of a span, in
// order, in bounded memory (the held* bounds), from the previous
// summary's.
type SectionBuilder struct {
	s            Sections
	tools        bool // the span or a previous one has tool calls
	requestBytes int
	pending      map[string]call
}

// call is what a tool call was, kept until its result comes.
type call struct {
	files []fileOp // a file's read or write
	cmd   string   // else the command, or the tool and its arguments
	shell bool     // cmd is a command run (its output's first line may say how it went)
}

type fileOp struct{ path, op string }

// NewSectionBuilder starts from the previous summary's sections (nil for
// none).
func NewSectionBuilder(prev *Sections) *SectionBuilder {
	b := &SectionBuilder{pending: map[string]call{}}
	if prev != nil && !prev.Empty() {
		b.s = *prev
		b.s.Requests = append([]string(nil), prev.Requests...)
		b.s.Files = append([]File(nil), prev.Files...)
		b.s.Commands = append([]Command(nil), prev.Commands...)
		b.s.Errors = append([]Error(nil), prev.Errors...)
		for _, r := range b.s.Requests {
			b.requestBytes += len(r)
		}
		b.tools = prev.Tools
	}
	return b
}

// Add counts one record in; errs are its error lines (ErrorLines), for a
// tool result.
func (b *SectionBuilder) Add(r *transcript.Record, errs []string) {
	if r.IsFake() {
		return
	}
	switch r.Message.Role {
	case transcript.RoleUser:
		text := strings.TrimSpace(strings.Join(r.Message.Contents, "\n"))
		if text == "" {
			return
		}
		text = strings.Clone(text)
		if b.s.First == "" {
			b.s.First = text
			return
		}
		b.s.Requests = append(b.s.Requests, text)
		b.requestBytes += len(text)
		for len(b.s.Requests) > 1 && b.requestBytes > heldRequestBytes {
			b.requestBytes -= len(b.s.Requests[0])
			b.s.Requests[0] = ""
			b.s.Requests = b.s.Requests[1:]
			b.s.RequestsDropped++
		}
	case transcript.RoleTool:
		b.tools = true
		c, ok := b.pending[r.Message.ToolCallID]
		if ok {
			delete(b.pending, r.Message.ToolCallID)
		} else {
			c = call{cmd: cmpOr(r.Message.Name, "tool")}
		}
		text := strings.Join(r.Message.Contents, "\n")
		failed := r.Message.IsError || len(errs) > 0
		from := c.cmd
		for _, f := range c.files {
			op := f.op
			if failed {
				op += " (failed)"
			}
			b.touch(f.path, op)
			if from == "" {
				from = f.op + " " + f.path
			}
		}
		if len(c.files) == 0 {
			b.s.Commands = append(b.s.Commands, Command{Cmd: c.cmd, Outcome: outcome(text, r.Message.IsError, c.shell)})
			if len(b.s.Commands) > 2*MaxCommands {
				n := len(b.s.Commands) - MaxCommands
				b.s.CommandsDropped += n
				b.s.Commands = append(b.s.Commands[:0], b.s.Commands[n:]...)
			}
		}
		for _, e := range errs {
			b.addError(Error{From: from, Line: strings.Clone(e)})
		}
	}
	for _, tc := range r.Message.ToolCalls {
		b.tools = true
		if len(b.pending) >= heldPending {
			clear(b.pending) // calls that never got a result
		}
		b.pending[strings.Clone(tc.ID)] = callOf(tc)
	}
}

// addError appends e unless the same line from the same call is held.
func (b *SectionBuilder) addError(e Error) {
	for _, o := range b.s.Errors {
		if o.Line == e.Line && o.From == e.From {
			return
		}
	}
	b.s.Errors = append(b.s.Errors, e)
	if len(b.s.Errors) > 2*MaxErrors {
		n := len(b.s.Errors) - MaxErrors
		b.s.ErrorsDropped += n
		b.s.Errors = append(b.s.Errors[:0], b.s.Errors[n:]...)
	}
}

// touch records op on path; the files stay in the order last touched.
func (b *SectionBuilder) touch(path, op string) {
	f := File{Path: path}
	for i := range b.s.Files {
		if b.s.Files[i].Path == path {
			f = b.s.Files[i]
			b.s.Files = append(b.s.Files[:i], b.s.Files[i+1:]...)
			break
		}
	}
	found := false
	for i := range f.Did {
		if f.Did[i].Op == op {
			f.Did[i].N++
			found = true
		}
	}
	if !found {
		f.Did = append(f.Did, Op{Op: op, N: 1})
	}
	b.s.Files = append(b.s.Files, f)
	if len(b.s.Files) > heldFiles {
		b.s.FilesDropped++
		b.s.Files = b.s.Files[1:]
	}
}

// Sections returns what was built, and whether it is shown: a span
// without tool calls, after none, shows no sections, but carries its first
// request, so that the sections of an agent session whose first span had
// no call still open with the first request.
func (b *SectionBuilder) Sections() (Sections, bool) {
	if !b.tools {
		return Sections{First: b.s.First}, false
	}
	b.s.Tools = true
	return b.s, !b.s.Empty()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// pathKeys are the arguments that name a file.
var pathKeys = []string{"path", "file_path", "filePath", "filename", "file", "notebook_path", "target_file"}

// callOf is what a tool call does: a file's read or write, or a command.
func callOf(tc transcript.ToolCall) call {
	var args map[string]any
	_ = json.Unmarshal([]byte(tc.Arguments), &args)
	name := strings.ToLower(tc.Name)
	// A patch names its files inside (Codex's apply_patch).
	if ms := patchRE().FindAllStringSubmatch(tc.Arguments, 64); len(ms) > 0 {
		var c call
		for _, m := range ms {
			op := map[string]string{"Add": "written", "Update": "edited", "Delete": "deleted"}[m[1]]
			c.files = append(c.files, fileOp{path: strings.Clone(m[2]), op: op})
		}
		return c
	}
	for _, k := range pathKeys {
		p, ok := args[k].(string)
		if !ok || p == "" || len(p) > maxCommandBytes || strings.Contains(p, "\n") {
			continue
		}
		op := fileVerb(name)
		if sub, ok := args["command"].(string); ok && op == "" {
			op = fileVerb(strings.ToLower(sub))
		}
		if op != "" {
			return call{files: []fileOp{{path: strings.Clone(p), op: op}}}
		}
		break
	}
	cmd, shell := commandOf(tc.Name, args, tc.Arguments)
	return call{cmd: cmd, shell: shell}
}

// fileVerb is what a tool (or an editor's command) of that name does to
// a file: read, written, edited, deleted, or "" (not a file's read or
// write: a search, a command).
func fileVerb(name string) string {
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(name, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("grep", "search", "glob", "find", "list", "ls"):
		return ""
	case has("str_replace", "edit", "replace", "patch", "insert", "update", "modify"):
		return "edited"
	case has("write", "create", "save"):
		return "written"
	case has("delete", "remove", "unlink"):
		return "deleted"
	case has("read", "view", "cat", "open", "show"):
		return "read"
	}
	return ""
}

var patchRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\*\*\* (Add|Update|Delete) File: ([^\s"\\]+)`)
})

// commandOf is the command a call runs (its "command", "cmd" or
// "script" argument; a shell's argv is joined, "bash -lc X" is X), or
// else the tool's name and its short arguments (shell false).
func commandOf(name string, args map[string]any, raw string) (cmd string, shell bool) {
	for _, k := range []string{"command", "cmd", "script"} {
		switch v := args[k].(type) {
		case string:
			if strings.TrimSpace(v) != "" {
				return clipBytes(strings.Clone(strings.TrimSpace(v)), maxCommandBytes), true
			}
		case []any:
			var argv []string
			for _, a := range v {
				if s, ok := a.(string); ok {
					argv = append(argv, s)
				}
			}
			if n := len(argv); n >= 3 && (argv[n-2] == "-lc" || argv[n-2] == "-c") {
				argv = argv[n-1:]
			}
			if len(argv) > 0 {
				return clipBytes(strings.Join(argv, " "), maxCommandBytes), true
			}
		}
	}
	parts := []string{name}
	if values, ok := jsonValues(raw); ok {
		for _, v := range values {
			if len(v.text) <= maxArgument && !strings.Contains(v.text, "\n") && strings.TrimSpace(v.text) != "" {
				parts = append(parts, v.text)
			}
		}
	}
	return clipBytes(strings.Clone(strings.Join(parts, " ")), maxCommandBytes), false
}

// outcome is what a command's output says of how it went: its exit
// status, its passed and failed tests (Go's "--- PASS" / "--- FAIL" and
// package lines, "N passed" / "N failed" of pytest, jest and others), or
// else, of a command run (shell), its first line ("[main 3f9a2c1] fix
// parser"), of another tool the lines it gave: a search's or a file's
// lines are a body, not an outcome.
func outcome(text string, isError, shell bool) string {
	var parts []string
	if m := exitRE().FindStringSubmatch(text); m != nil {
		parts = append(parts, "exit "+m[1])
	}
	pass, fail := 0, 0
	pkgOK, pkgFail := 0, 0
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "--- PASS"):
			pass++
		case strings.HasPrefix(t, "--- FAIL"):
			fail++
		case strings.HasPrefix(line, "ok  \t"):
			pkgOK++
		case strings.HasPrefix(line, "FAIL\t"):
			pkgFail++
		}
	}
	if pass+fail == 0 {
		for _, m := range countRE().FindAllStringSubmatch(text, -1) {
			n, _ := strconv.Atoi(m[1])
			if strings.HasPrefix(m[2], "pass") {
				pass += n
			} else {
				fail += n
			}
		}
	}
	if pass+fail > 0 {
		parts = append(parts, fmt.Sprintf("%d passed, %d failed", pass, fail))
	}
	if pkgOK+pkgFail > 0 && pass+fail == 0 {
		parts = append(parts, fmt.Sprintf("packages: %d ok, %d failed", pkgOK, pkgFail))
	}
	if len(parts) == 0 {
		first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		first = strings.TrimSpace(first)
		if isError {
			parts = append(parts, "failed")
		}
		switch {
		case first == "":
			parts = append(parts, "no output")
		case shell:
			parts = append(parts, clipBytes(first, maxOutcomeBytes))
		case !isError:
			parts = append(parts, fmt.Sprintf("%d lines", strings.Count(strings.TrimSpace(text), "\n")+1))
		}
	}
	return strings.Clone(strings.Join(parts, "; "))
}

var (
	exitRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:exit(?:ed with)? (?:status|code)|exit code|return ?code|exit_code|exitcode)[:=]? ?(-?\d+)`)
	})
	countRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(\d+) (passed|passing|failed|failing)\b`)
	})
)

// headingRE is the first line of the sections: a summary's text opens
// with the first section that has entries.
var headingRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:Requests \(the user's, verbatim, first to latest\)|Files|Commands|Errors)(?: \(\d+ left out\))?:\n`)
})

// CutSections returns text without the sections it opens with, if any.
func CutSections(text string) string {
	if headingRE().MatchString(text) {
		_, rest, _ := strings.Cut(text, "\n\n")
		return rest
	}
	return text
}

// Fit bounds s within budget tokens (see the bounds above) and returns
// what it keeps and its text ("" for nothing). Every request line is
// one text: a request's line breaks are indented, so the block holds no
// blank line and ends at the first.
func (s Sections) Fit(budget int, c *tokens.Counter) (Sections, string) {
	if s.Empty() {
		return s, ""
	}
	keepLast := func(n int, dropped *int, l int) int {
		if l > n {
			*dropped += l - n
			return l - n
		}
		return 0
	}
	s.Files = s.Files[keepLast(MaxFiles, &s.FilesDropped, len(s.Files)):]
	s.Commands = s.Commands[keepLast(MaxCommands, &s.CommandsDropped, len(s.Commands)):]
	s.Errors = s.Errors[keepLast(MaxErrors, &s.ErrorsDropped, len(s.Errors)):]
	// The first and the latest always; the others newest first within
	// the requests' share.
	if n := len(s.Requests); n > 1 {
		share := budget / RequestsShare
		used := c.Count(requestLine(s.First)) + c.Count(requestLine(s.Requests[n-1]))
		from := n - 1
		for from > 0 {
			cost := c.Count(requestLine(s.Requests[from-1]))
			if used+cost > share {
				break
			}
			used += cost
			from--
		}
		s.RequestsDropped += from
		s.Requests = s.Requests[from:]
	}
	text := s.text()
	// Past the sections' share the oldest commands go first (the most
	// numerous, and the Errors say what failed), then the oldest files,
	// then the requests but the first and the latest, then the errors
	// down to ErrorsFloor, the runner's marks first, then the oldest.
	for limit := budget / SectionsShare; c.Count(text) > limit; text = s.text() {
		switch {
		case len(s.Commands) > 0:
			s.Commands, s.CommandsDropped = s.Commands[1:], s.CommandsDropped+1
		case len(s.Files) > 0:
			s.Files, s.FilesDropped = s.Files[1:], s.FilesDropped+1
		case len(s.Requests) > 1:
			s.Requests, s.RequestsDropped = s.Requests[1:], s.RequestsDropped+1
		case len(s.Errors) > ErrorsFloor:
			// A runner's mark (--- FAIL) goes before a line that says
			// what failed; among equals the oldest.
			i := slices.IndexFunc(s.Errors, func(e Error) bool { return failMark(e.Line) })
			s.Errors, s.ErrorsDropped = slices.Delete(s.Errors, max(i, 0), max(i, 0)+1), s.ErrorsDropped+1
		default:
			return s, text
		}
	}
	return s, text
}

// requestLine is a request as its section shows it: verbatim, up to
// maxRequestBytes (a longer one keeps its start up to a sentence's end,
// marked " […]"), its line breaks indented.
func requestLine(r string) string {
	if len(r) > maxRequestBytes {
		cut := clipBytes(r, maxRequestBytes)
		cut = strings.TrimSuffix(cut, "…")
		if i := strings.LastIndexAny(cut, ".!?\n"); i > maxRequestBytes/2 {
			cut = cut[:i+1]
		}
		r = strings.TrimSpace(cut) + " […]"
	}
	return "- " + strings.ReplaceAll(r, "\n", "\n  ")
}

// text renders the sections.
func (s Sections) text() string {
	var b strings.Builder
	left := func(n int) string {
		if n > 0 {
			return fmt.Sprintf(" (%d left out)", n)
		}
		return ""
	}
	if s.First != "" {
		b.WriteString("Requests (the user's, verbatim, first to latest)")
		b.WriteString(left(s.RequestsDropped))
		b.WriteString(":\n")
		b.WriteString(requestLine(s.First))
		for _, r := range s.Requests {
			b.WriteString("\n")
			b.WriteString(requestLine(r))
		}
	}
	if len(s.Files) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Files" + left(s.FilesDropped) + ":")
		for _, f := range s.Files {
			b.WriteString("\n- ")
			b.WriteString(f.Path)
			b.WriteString(": ")
			for i, op := range f.Did {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(op.Op)
				if op.N > 1 {
					fmt.Fprintf(&b, " ×%d", op.N)
				}
			}
		}
	}
	if len(s.Commands) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Commands" + left(s.CommandsDropped) + ":")
		for _, c := range s.Commands {
			b.WriteString("\n- `")
			b.WriteString(strings.ReplaceAll(c.Cmd, "\n", " "))
			b.WriteString("`")
			if c.Outcome != "" {
				b.WriteString(" → ")
				b.WriteString(strings.ReplaceAll(c.Outcome, "\n", " "))
			}
		}
	}
	if len(s.Errors) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Errors" + left(s.ErrorsDropped) + ":")
		for _, e := range s.Errors {
			b.WriteString("\n- ")
			if e.From != "" {
				b.WriteString("`")
				b.WriteString(strings.ReplaceAll(e.From, "\n", " "))
				b.WriteString("`: ")
			}
			b.WriteString(e.Line)
		}
	}
	return b.String()
}
