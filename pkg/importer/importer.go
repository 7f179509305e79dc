// Package importer is convo import: it reads the session files of coding
// agents (Claude Code, Codex, Gemini CLI) and the exports of chat apps
// (ChatGPT, Claude.ai) into the store, one conversation per session,
// incrementally (a cursor per source file, moved with the records it
// covers) and deterministically (transcript.SourceID). Each format is a
// Format in a file of its own; run.go is what they share.
package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Format reads one tool's files. A decoder turns a source into sessions,
// each a walk over the entries of its active branch; the importer does
// the rest (names, ids, cursors, rules, chunks).
type Format interface {
	// Name is the --from value: claude-code, codex, ...
	Name() string
	// Match reports whether a file met walking a directory is the format's.
	Match(path string) bool
	// Growing is true for session logs that grow by appends (a cursor may
	// skip what it covers, and a shorter file or another head is a
	// rewrite); false for whole dumps (exports), matched by conversation.
	Growing() bool
	// Decode reads src and calls emit for each session it holds.
	Decode(src *Source, emit func(*Session) error) error
}

// formats lists the decoders by name; adding one is adding a line here.
func formats() []Format {
	return []Format{claudeCode{}, codex{}, geminiCLI{}, chatGPT{}, claudeAI{}}
}

// Lookup returns the format named name.
func Lookup(name string) (Format, bool) {
	for _, f := range formats() {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Names lists the formats' names, for help and errors.
func Names() []string {
	var out []string
	for _, f := range formats() {
		out = append(out, f.Name())
	}
	return out
}

// Source is one file being read.
type Source struct {
	Path string // absolute path, or "-" for stdin
	R    io.ReaderAt
	Size int64
	// Branches asks the decoder for the branches off the active one.
	Branches bool
	notes    *Notes
	// progress is told how far into the file a read got, once past
	// where any read got before (done).
	progress func(int64)
	done     int64
	// at, when set, is where the last import stopped, and the format a
	// Resumer: it is read from there (see resume.go).
	at *At
}

// reached reports that a read of src got to off.
func (s *Source) reached(off int64) {
	if off > s.done && s.progress != nil {
		s.progress(min(off, s.Size) - s.done)
		s.done = min(off, s.Size)
	}
}

// Reader reads the whole source from its start.
func (s *Source) Reader() io.Reader { return io.NewSectionReader(s.R, 0, s.Size) }

// Note counts something of the source convo has no place for.
func (s *Source) Note(what string) {
	if s.notes != nil {
		s.notes.Add(what)
	}
}

// Session is one conversation a source holds.
type Session struct {
	ID   string
	Meta Meta
	// Walk calls fn for each entry of the active branch, oldest first,
	// from the start; the first skip entries come without Records (the
	// importer already holds them: no need to decode them). It may be
	// called more than once. Read by Resumer.Resume, it calls fn for the
	// entries past the cursor alone: those past skip.
	Walk func(skip int, fn func(*Entry) error) error
	// Branches are the other branches, asked for with Source.Branches.
	Branches []Branch
}

// Branch is a branch off the active one: Key is the source's id of its
// first entry off the active branch, Walk goes over it whole, root first.
type Branch struct {
	Key  string
	Walk func(skip int, fn func(*Entry) error) error
}

// Meta is what a session says of itself, stored under the first record's
// aux.import.
type Meta struct {
	Version, Cwd, GitBranch, Model, Title, Project string
	// Parent is the session a sub-agent's session belongs to.
	Parent string
}

// Entry is one entry of a session: the records it makes (none, one, or
// more: an entry holding text and tool results), without ids.
type Entry struct {
	ID      string // the source's own id of the entry
	Time    time.Time
	Line    int // its line in a file of lines; 0 otherwise
	Records []transcript.Record
	// Held: part of the entry waits for a later one (thinking written
	// before the text it goes with); a cursor stops before it, so that
	// the next import reads it again.
	Held bool
	// TurnAux, when set, goes on the aux of the latest assistant record
	// of the turn (the source's usage of the answer, written after it:
	// Codex's token_count, an exec stream's turn.completed); if that
	// record was stored before (an earlier chunk or import), it is noted.
	TurnAux map[string]json.RawMessage
	// Next is where a read could resume past this entry (a Resumer's);
	// none (Offset 0) if it cannot (a format, or a place, that does not
	// allow it). A value: a pointer would add an allocation per entry.
	Next Point
}

// Notes counts what was not imported, by kind, and names the entries
// skipped (a line that is no JSON, a field that is not the format's).
type Notes struct {
	n       map[string]int
	skipped []string // the first maxNamed, as "line N: field: why"
}

// maxNamed bounds the skipped entries a file names (the rest counted).
const maxNamed = 20

// skipKind is the kind an entry skipped is counted as.
const skipKind = "entry skipped (named)"

// Skip counts an entry skipped for err, and names it.
func (s *Source) Skip(err error) {
	if s.notes == nil || slices.Contains(s.notes.skipped, err.Error()) {
		return // named already (a walk made again)
	}
	s.notes.Add(skipKind)
	if len(s.notes.skipped) < maxNamed {
		s.notes.skipped = append(s.notes.skipped, err.Error())
	}
}

// skippable reports whether err is about one entry of the input (an
// *InputError), which the import skips and names, rather than the
// store's or the file's.
func skippable(err error) bool {
	var ie *transcript.InputError
	return errors.As(err, &ie)
}

// Add counts one more of what.
func (n *Notes) Add(what string) {
	if n.n == nil {
		n.n = map[string]int{}
	}
	n.n[what]++
}

// known are the kinds left out that are known and carried elsewhere, or
// of no use to a provider: not lost (--strict passes them).
var known = map[string]bool{
	// read next time
	"unfinished last line (read next time)": true,
	// Claude Code: the tool's structured copy of the result text kept,
	// the UI's and the harness's own entries
	"toolUseResult (the tool's structured output)": true,
	"file-history-snapshot":                        true,
	"progress":                                     true,
	"queue-operation":                              true,
	"system/turn_duration":                         true,
	"system/stop_hook_summary":                     true,
	"system/api_error":                             true,
	"attachment/hook_success":                      true,
	// Codex: token counts, the UI's copies of items imported, snapshots
	"event_msg/token_count":                   true,
	"usage of an answer stored before":        true,
	"event_msg/exec_command_begin":            true,
	"event_msg/exec_command_end":              true,
	"event_msg/exec_command_end (user shell)": true,
	"event_msg/exec_command_output_delta":     true,
	"event_msg/patch_apply_begin":             true,
	"event_msg/patch_apply_end":               true,
	"event_msg/turn_diff":                     true,
	"event_msg/mcp_tool_call_begin":           true,
	"event_msg/mcp_tool_call_end":             true,
	"event_msg/web_search_begin":              true,
	"event_msg/web_search_end":                true,
	"event_msg/context_compacted":             true,
	"event_msg/agent_reasoning_section_break": true,
	"ghost_snapshot":                          true,
	// reasoning summaries without a signature: nothing to send back
	"exec item reasoning":          true,
	"thought part":                 true,
	"thoughts":                     true,
	"thinking without a signature": true,
	"reasoning_recap":              true,
	// Gemini CLI's own messages to the user
	"info message":    true,
	"warning message": true,
	"error message":   true,
}

// Lost is how many of those counted are lost: all but the known kinds.
func (n *Notes) Lost() int {
	t := 0
	for k, v := range n.n {
		if !known[k] {
			t += v
		}
	}
	return t
}

// split is the kinds lost and the kinds known, each as String says.
func (n *Notes) split() (lost, knownKinds string) {
	var l, k Notes
	for kind, v := range n.n {
		if known[kind] {
			k.add(kind, v)
		} else {
			l.add(kind, v)
		}
	}
	return l.String(), k.String()
}

func (n *Notes) add(what string, v int) {
	if n.n == nil {
		n.n = map[string]int{}
	}
	n.n[what] += v
}

// Len is how many were counted.
func (n *Notes) Len() int {
	t := 0
	for _, v := range n.n {
		t += v
	}
	return t
}

// String lists them, most frequent first: "3 image, 1 attachment".
func (n *Notes) String() string {
	keys := make([]string, 0, len(n.n))
	for k := range n.n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if n.n[keys[i]] != n.n[keys[j]] {
			return n.n[keys[i]] > n.n[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", n.n[k], k)
	}
	return strings.Join(parts, ", ")
}

// Kinds returns the kinds counted, sorted.
func (n *Notes) Kinds() []string {
	var out []string
	for k := range n.n {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// inputErr is a line or field that is not the format's (exit 3).
func inputErr(line int, field, format string, args ...any) error {
	return &transcript.InputError{Line: line, Field: field, Err: fmt.Errorf(format, args...)}
}
