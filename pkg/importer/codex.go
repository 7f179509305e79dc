package importer

// Codex rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
// {"timestamp","type","payload"} a line (session_meta first, then
// response_item, event_msg, turn_context, compacted); files of early 2025
// hold the items bare after a first line {id, timestamp, instructions}.
// `codex exec --json` streams are read too (thread.started, item.*). One
// linear history, read in one pass; an entry is a line, its id the line's
// number and a hash of its bytes.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

type codex struct{}

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

func (codex) Decode(src *Source, emit func(*Session) error) error {
	s := &Session{}
	// The id and meta are on the first lines: read them first.
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
		return err
	}
	if s.ID == "" {
		if m := codexIDInName().FindStringSubmatch(src.Path); m != nil {
			s.ID = m[1]
		} else {
			s.ID = strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
		}
	}
	s.Walk = func(skip int, fn func(*Entry) error) error {
		d := codexDecoder{src: src, model: s.Meta.Model}
		k := 0
		start, startLine := src.startAt()
		if src.from != nil {
			// past the cursor: every line is new, the model as it was there
			k, d.model, d.prompts, d.answered = skip, src.from.Model, src.from.Prompts, src.from.Answered
		}
		quiet := *src
		quiet.notes = nil
		err := eachLine(src, src.rest(), startLine, start, func(l line) error {
			h := sha256.Sum256(l.text)
			e := &Entry{ID: strconv.Itoa(l.n) + "-" + hex.EncodeToString(h[:6]), Line: l.n}
			var cl codexLine
			if err := cl.scan(l.text); err != nil {
				// A torn line amid the file: named (once: past the
				// cursor), skipped.
				if k >= skip {
					src.Skip(inputErr(l.n, "", "skipped: not a Codex rollout line: %v", err))
				}
				k++
				e.next = resume{Offset: l.end, Line: l.n, Model: d.model, Prompts: d.prompts, Answered: d.lastAnswered()}
				return fn(e)
			}
			e.Time = parseTime(cl.Timestamp)
			if k >= skip {
				if !utf8.Valid(l.text) {
					src.Note("invalid UTF-8 (replaced by U+FFFD)")
				}
				recs, err := d.line(&cl, l.text, l.n)
				if skippable(err) {
					src.Skip(err)
					recs, err = nil, nil
				}
				if err != nil {
					return err
				}
				if len(d.execs) > 0 && len(recs) > 0 && recs[0].Message.Role != transcript.RoleTool {
					// The turn goes on without the outputs of these
					// commands: their events are the results.
					recs = append(d.execResults(), recs...)
				}
				e.Records, e.Held, e.TurnAux = recs, len(d.pending) > 0 || len(d.execs) > 0, d.usage
				d.usage = nil
			} else {
				switch cl.Type {
				case "turn_context", "response_item", "event_msg", "compacted":
					// The model in force and the prompts of the open turn
					// (an event_msg copy of one before the cursor is no
					// new prompt); nothing noted, nothing held.
					d.src = &quiet
					_, _ = d.line(&cl, l.text, l.n)
					d.src, d.pending, d.execs, d.usage = src, nil, nil, nil
				}
			}
			k++
			e.next = resume{Offset: l.end, Line: l.n, Model: d.model, Prompts: d.prompts, Answered: d.lastAnswered()}
			return fn(e)
		})
		if err == nil {
			d.pending, d.execs = nil, nil // held: read again next time
		}
		d.done()
		return err
	}
	return emit(s)
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
}

// codexExec is an exec_command_end event waiting for its output item.
type codexExec struct {
	callID, out string
	isErr       bool
}

// maxAnswered bounds the call ids answered remembered.
const maxAnswered = 64

// execResults makes the waiting exec events the results of their calls
// (the builder pairs each with its call, or notes one that answers none).
func (d *codexDecoder) execResults() []transcript.Record {
	var out []transcript.Record
	for _, x := range d.execs {
		out = append(out, transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: x.callID,
			Contents: []string{x.out}, IsError: x.isErr}})
	}
	d.execs = nil
	return out
}

// lastAnswered is what a cursor keeps of answered: the latest few.
func (d *codexDecoder) lastAnswered() []string {
	return d.answered[max(len(d.answered)-8, 0):]
}

// output notes a call's output item: an exec event of it before is a copy.
func (d *codexDecoder) output(callID string) {
	for i, x := range d.execs {
		if x.callID == callID {
			d.execs = slices.Delete(slices.Clone(d.execs), i, i+1)
			d.src.Note("event_msg/exec_command_end")
			break
		}
	}
	d.answered = append(d.answered, callID)
	if len(d.answered) > maxAnswered {
		d.answered = d.answered[len(d.answered)-maxAnswered:]
	}
}

// codexPrompt is a user text of the open turn.
type codexPrompt struct {
	Hash  string `json:"h"`
	MS    int64  `json:"t,omitempty"`
	Event bool   `json:"e,omitempty"` // given by an event_msg/user_message
}

// promptHash hashes a prompt's text, spaces around it left out.
func promptHash(text string) string {
	h := sha256.Sum256([]byte(strings.TrimSpace(text)))
	return hex.EncodeToString(h[:8])
}

// maxPrompts bounds the user texts an open turn remembers.
const maxPrompts = 8

// seen finds, among the open turn's prompts given the other way
// (event or not), one of hashes written within a minute of ms, and
// forgets it: the text is a copy of it.
func (d *codexDecoder) seen(event bool, ms int64, hashes ...string) bool {
	for i, p := range d.prompts {
		near := p.MS == 0 || ms == 0 || max(p.MS-ms, ms-p.MS) <= 60_000
		if p.Event != event && near && slices.Contains(hashes, p.Hash) {
			d.prompts = slices.Delete(slices.Clone(d.prompts), i, i+1)
			return true
		}
	}
	return false
}

// prompt remembers a user text of the open turn.
func (d *codexDecoder) prompt(event bool, ms int64, hashes ...string) {
	ps := slices.Clone(d.prompts)
	for _, h := range hashes {
		ps = append(ps, codexPrompt{Hash: h, MS: ms, Event: event})
	}
	if len(ps) > maxPrompts {
		ps = ps[len(ps)-maxPrompts:]
	}
	d.prompts = ps
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
		var it codexItem
		_ = json.Unmarshal(payload, &it)
		switch it.Type {
		case "user_message":
			// The UI's copy of the user's response item, or (Codex
			// Desktop 0.128) the prompt's only record.
			if strings.TrimSpace(it.Message) == "" {
				return nil, nil
			}
			ms, h := d.ms, promptHash(it.Message)
			if d.seen(true, ms, h) {
				return nil, nil
			}
			d.prompt(true, ms, h)
			d.done()
			return []transcript.Record{{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{it.Message}}}}, nil
		case "token_count":
			// The usage of the answer just written (last_token_usage) and
			// of the session so far: on that answer's aux.
			if it.Info == nil || len(it.Info.Last) == 0 && len(it.Info.Total) == 0 {
				d.src.Note("event_msg/token_count") // rate limits only
				return nil, nil
			}
			d.usage = map[string]json.RawMessage{}
			if len(it.Info.Last) > 0 && string(it.Info.Last) != "null" {
				d.usage["usage"] = compactRaw(it.Info.Last)
			}
			if len(it.Info.Total) > 0 && string(it.Info.Total) != "null" {
				d.usage["usage_total"] = compactRaw(it.Info.Total)
			}
		case "exec_command_end":
			// The UI's copy of the function_call_output that follows it;
			// the call's result if none does.
			if it.CallID == "" || slices.Contains(d.answered, it.CallID) {
				d.src.Note("event_msg/exec_command_end")
				return nil, nil
			}
			if it.Source == "user_shell" {
				// A command the user ran (!cmd): Codex writes it and its
				// output into the history as a user message.
				d.src.Note("event_msg/exec_command_end (user shell)")
				return nil, nil
			}
			out := it.AggregatedOutput
			if out == "" {
				out = it.Stdout
				if it.Stderr != "" {
					out = strings.TrimSuffix(out+"\n"+it.Stderr, "\n")
					out = strings.TrimPrefix(out, "\n")
				}
			}
			d.execs = append(slices.Clone(d.execs), codexExec{callID: it.CallID, out: out, isErr: it.ExitCode != nil && *it.ExitCode != 0})
		case "agent_message", "agent_reasoning", "task_started", "task_complete", "turn_aborted":
			// the UI's copy of what the response items hold, or turn marks
		default:
			d.src.Note("event_msg/" + it.Type)
		}
		return nil, nil
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
