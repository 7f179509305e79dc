package facts

import (
	"cmp"
	"strings"

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
			c = call{cmd: cmp.Or(r.Message.Name, "tool")}
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
