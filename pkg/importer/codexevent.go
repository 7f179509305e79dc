package importer

// Codex's event_msg lines: the prompts written only as events, the token
// counts that go on the answer before them, the exec_command_end events
// that copy a function_call_output (or stand for a missing one).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// event reads an event_msg line's payload.
func (d *codexDecoder) event(payload json.RawMessage) ([]transcript.Record, error) {
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
