package importer

// Codex rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
// {"timestamp","type","payload"} a line (session_meta first, then
// response_item, event_msg, turn_context, compacted); files of early 2025
// hold the items bare after a first line {id, timestamp, instructions}.
// `codex exec --json` streams are read too (thread.started, item.*). One
// linear history, read in one pass; an entry is a line, its id the line's
// number and a hash of its bytes.

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/convo-cli/convo/pkg/transcript"
)

type codex struct{}

// It reads a grown file from the last import's cursor (codexresume.go).
var _ Resumer = codex{}

func (codex) Name() string  { return "codex" }
func (codex) Growing() bool { return true }
func (codex) Match(p string) bool {
	b := filepath.Base(p)
	return strings.HasPrefix(b, "rollout-") && strings.HasSuffix(b, ".jsonl")
}

// codexLine is one line, of any of the forms.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// early files' first line, and exec streams
	ID         string          `json:"id"`
	ThreadID   string          `json:"thread_id"`
	Item       json.RawMessage `json:"item"`
	RecordType string          `json:"record_type"` // early files' state lines
	Usage      json.RawMessage `json:"usage"`       // an exec stream's turn.completed
}

// codexItem is a response item, an event, a turn context or a meta line.
type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Message   string          `json:"message"`
	// compacted
	ReplacementHistory []json.RawMessage `json:"replacement_history"`
	// session_meta
	ID           string          `json:"id"`
	SessionID    string          `json:"session_id"`
	Cwd          string          `json:"cwd"`
	CLIVersion   string          `json:"cli_version"`
	Instructions json.RawMessage `json:"instructions"`
	Git          *struct {
		Branch string `json:"branch"`
	} `json:"git"`
	Model string `json:"model"`
	// exec items
	Text             string `json:"text"`
	Command          string `json:"command"`
	AggregatedOutput string `json:"aggregated_output"`
	ExitCode         *int   `json:"exit_code"`
	// event_msg exec_command_end
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Source string `json:"source"` // agent, user_shell, ...
	// event_msg token_count
	Info *struct {
		Last  json.RawMessage `json:"last_token_usage"`
		Total json.RawMessage `json:"total_token_usage"`
	} `json:"info"`
}

var codexIDInName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$`)
})

func (c codex) Decode(src *Source, emit func(*Session) error) error {
	return c.read(src, nil, emit)
}

func (c codex) Resume(src *Source, at At, emit func(*Session) error) error {
	return c.read(src, &at, emit)
}

// read emits the file's one session, whose walk reads the lines past at
// (all of them when at is nil).
func (codex) read(src *Source, at *At, emit func(*Session) error) error {
	var st codexResume
	if at != nil && len(at.State) > 0 && json.Unmarshal(at.State, &st) != nil {
		return errRestart
	}
	s, err := codexSession(src)
	if err != nil {
		return err
	}
	s.Walk = func(skip int, fn func(*Entry) error) error {
		d := codexDecoder{src: src, model: s.Meta.Model}
		k := 0
		if at != nil {
			// past the cursor: every line is new, the model as it was there
			k, d.model, d.prompts, d.answered = skip, st.Model, st.Prompts, st.Answered
		}
		return d.walk(at, k, skip, fn)
	}
	return emit(s)
}

// codexSession is the session of a rollout, its id and meta read from
// its first lines (or its name).
func codexSession(src *Source) (*Session, error) {
	s := &Session{}
	err := eachLine(src, src.Reader(), 0, 0, func(l line) error {
		var cl codexLine
		if json.Unmarshal(l.text, &cl) != nil {
			return errStop
		}
		var it codexItem
		_ = json.Unmarshal(cl.Payload, &it)
		switch {
		case cl.Type == "session_meta":
			s.ID = it.ID
			if it.SessionID != "" {
				s.ID = it.SessionID
			}
			s.Meta.Cwd, s.Meta.Version = it.Cwd, it.CLIVersion
			if it.Git != nil {
				s.Meta.GitBranch = it.Git.Branch
			}
		case cl.Type == "turn_context":
			s.Meta.Model = it.Model
			return errStop
		case cl.Type == "thread.started":
			s.ID = cl.ThreadID
		case l.n == 1 && cl.Type == "" && cl.ID != "":
			s.ID = cl.ID
		case l.n > 20:
			return errStop
		}
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	if s.ID == "" {
		if m := codexIDInName().FindStringSubmatch(src.Path); m != nil {
			s.ID = m[1]
		} else {
			s.ID = strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
		}
	}
	return s, nil
}

// scan reads a line's top-level keys, the payload left raw.
func (cl *codexLine) scan(b []byte) error {
	return topLevel(b, func(k, v []byte) bool {
		switch string(k) {
		case "timestamp":
			cl.Timestamp = str(v)
		case "type":
			cl.Type = str(v)
		case "payload":
			cl.Payload = v
		case "id":
			cl.ID = str(v)
		case "thread_id":
			cl.ThreadID = str(v)
		case "item":
			cl.Item = v
		case "record_type":
			cl.RecordType = str(v)
		case "usage":
			cl.Usage = v
		}
		return true
	})
}

type stopErr struct{}

func (stopErr) Error() string { return "stop" }

var errStop error = stopErr{}

// codexDecoder turns lines into records, in order: reasoning waits for
// the assistant record it goes with.
type codexDecoder struct {
	src     *Source
	model   string
	pending []transcript.ProviderItem
	// prompts: the user's texts since the last answer, hashed, as the
	// response items and the event_msg copies gave them; a prompt found
	// both ways is imported once (the first found). Never changed in
	// place: a resume point keeps it.
	prompts []codexPrompt
	ms      int64 // the line's time (0: none)
	// execs: exec_command_end events whose function_call_output has not
	// come yet (it comes after them): dropped as copies when it comes, the
	// call's result if the turn goes on without it.
	execs []codexExec
	// answered: the call ids of the latest outputs imported (an event
	// after its output is a copy).
	answered []string
	// usage: what a token_count line gave, for the entry's TurnAux.
	usage map[string]json.RawMessage
	// state: the latest point's state (point makes it).
	state *codexResume
}

func (d *codexDecoder) done() {
	if len(d.pending) > 0 {
		d.src.Note("reasoning without an answer")
		d.pending = nil
	}
}

func (d *codexDecoder) line(cl *codexLine, raw json.RawMessage, n int) ([]transcript.Record, error) {
	payload := cl.Payload
	d.ms = entryMS(cl.Timestamp)
	switch cl.Type {
	case "response_item":
	case "session_meta":
		var it codexItem
		if json.Unmarshal(payload, &it) != nil {
			return nil, inputErr(n, "payload", "session_meta is no object")
		}
		var instr string
		if json.Unmarshal(it.Instructions, &instr) == nil && strings.TrimSpace(instr) != "" {
			return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleSystem, Contents: []string{instr}}}}, nil
		}
		return nil, nil
	case "turn_context":
		var it codexItem
		if json.Unmarshal(payload, &it) == nil && it.Model != "" {
			d.model = it.Model
		}
		return nil, nil
	case "event_msg":
		return d.event(payload)
	case "compacted":
		var it codexItem
		if json.Unmarshal(payload, &it) == nil && slices.ContainsFunc(it.ReplacementHistory, func(raw json.RawMessage) bool {
			var t struct {
				Type string `json:"type"`
			}
			return json.Unmarshal(raw, &t) == nil && t.Type == "compaction"
		}) {
			// A remote compaction (0.10x): the history Codex sends from
			// here on, ending in the encrypted compaction item, is the
			// summary's provider compaction, sent back as given (as a
			// /responses/compact output is).
			text := it.Message
			if strings.TrimSpace(text) == "" {
				text = transcript.CompactionMarker
			}
			m := transcript.Message{Role: transcript.RoleSummary, Contents: []string{text}}
			for _, raw := range it.ReplacementHistory {
				item, err := transcript.CompactJSON(raw)
				if err != nil {
					return nil, inputErr(n, "payload.replacement_history", "%v", err)
				}
				m.ProviderData = append(m.ProviderData, transcript.ProviderItem{Provider: codexProvider, Item: item})
			}
			d.prompts = nil
			return []transcript.Record{{Message: m}}, nil
		}
		if strings.TrimSpace(it.Message) == "" {
			d.src.Note("compacted without a summary text")
			return nil, nil
		}
		return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{it.Message}}}}, nil
	case "turn.completed":
		if len(cl.Usage) > 0 && string(cl.Usage) != "null" {
			d.usage = map[string]json.RawMessage{"usage": compactRaw(cl.Usage)}
		}
		return nil, nil
	case "thread.started", "turn.started", "item.started", "item.updated":
		return nil, nil
	case "item.completed":
		return d.execItem(cl.Item, n)
	case "":
		if n == 1 && cl.ID != "" {
			// An early file's meta line: {id, timestamp, instructions}.
			var it codexItem
			var instr string
			if json.Unmarshal(raw, &it) == nil && json.Unmarshal(it.Instructions, &instr) == nil && strings.TrimSpace(instr) != "" {
				return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleSystem, Contents: []string{instr}}}}, nil
			}
			return nil, nil
		}
		if cl.RecordType == "state" {
			return nil, nil // an early file's state lines
		}
		return nil, inputErr(n, "type", "a line without a type")
	default:
		// An early file's bare response item, or a type of a later version.
		if len(cl.Payload) == 0 && isResponseItem(cl.Type) {
			return d.item(raw, n)
		}
		d.src.Note("line type " + cl.Type)
		return nil, nil
	}
	return d.item(payload, n)
}

func isResponseItem(t string) bool {
	switch t {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "local_shell_call":
		return true
	}
	return false
}
