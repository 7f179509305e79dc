package format

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Renderer writes one request payload from the view's records, fed in
// transcript order. It holds at most an assistant turn and the user turn
// after it, so a long conversation streams through in constant memory.
// Nothing is written before the first message or Close, and output is
// buffered, so a failure early on leaves stdout empty.
type Renderer struct {
	// req.Schema is the schema as the provider is sent it.
	req     Request
	wire    wire
	j       *jsonWriter
	started bool
	// The assistant turn whose results are still arriving, its record id,
	// and the user turn after it.
	asst     *Turn
	asstID   string
	user     *Turn
	answered map[string]bool
	// held is the last complete turn, kept back so a following turn of the
	// same role (possible only after a lenient repair) can merge into it.
	held *Turn
	rec  transcript.Record // AddJSON's record, reused
	free []*Turn           // written turns, for reuse
	// lead holds the items of a compaction of the provider rendered, until
	// the turn they open (compaction.go).
	lead     []json.RawMessage
	leadSent bool
}

// NewRenderer returns a Renderer writing req to w; req.Messages is not
// read (see Render). Errors: an unknown provider (*UnknownError), and what
// Request.Check reports.
func NewRenderer(w io.Writer, req Request) (*Renderer, error) {
	p, err := lookup(req.Provider, CanRender)
	if err != nil {
		return nil, err
	}
	schema, err := req.check(&p)
	if err != nil {
		return nil, err
	}
	if req.Body && req.MaxTokens == 0 {
		req.MaxTokens = p.MaxTokens
	}
	if req.Warn == nil {
		req.Warn = func(string, ...any) {}
	}
	req.Messages, req.Schema = nil, schema
	return &Renderer{req: req, wire: p.newWire(), j: newJSONWriter(w), answered: map[string]bool{}}, nil
}

// Add feeds the next record of the view. System records are skipped (the
// prompt is Request.System); a summary record, which may come only before
// any message, sets Request.Summary.
func (r *Renderer) Add(rec *transcript.Record) error {
	m := &rec.Message
	switch m.Role {
	case transcript.RoleSystem:
		return nil
	case transcript.RoleSummary:
		if r.req.NoSummary {
			return nil
		}
		if r.started || r.asst != nil || r.user != nil {
			return fmt.Errorf("record %s: a summary after the messages it should precede", rec.ID)
		}
		if rec.CompactionProvider() == r.req.Provider {
			// The provider's own compaction: its items stand for the
			// history, first; no summary text.
			if err := r.req.ContextManagement.refuses(rec); err != nil {
				return err
			}
			r.req.Summary = ""
			r.setLead(rec)
			return nil
		}
		r.req.Summary = strings.Join(m.Contents, "\n\n")
		return nil
	case transcript.RoleUser:
		r.flushLead()
		if r.user == nil {
			r.user = r.newTurn(transcript.RoleUser)
		}
		if r.user.ID == "" && len(appendTexts(nil, m.Contents)) > 0 {
			r.user.ID = rec.ID // the first record whose text is sent
		}
		r.user.Texts = appendTexts(r.user.Texts, m.Contents)
	case transcript.RoleTool:
		r.flushLead()
		return r.addResult(rec)
	case transcript.RoleAssistant:
		if err := r.flush(false); err != nil {
			return err
		}
		t := r.newTurn(transcript.RoleAssistant)
		t.ID = rec.ID
		t.Texts = appendTexts(nil, m.Contents)
		sigs := thoughtSignatures(rec)
		for i, c := range m.ToolCalls {
			call := Call{ID: c.ID, Name: c.Name, Args: c.Arguments, Signature: sigs[c.ID]}
			if r.wire.objectArgs() {
				in, err := argsObject(c.Arguments)
				if err != nil {
					if !r.req.Lenient {
						return inputError(rec.ID,
							"tool call %s (message.tool_calls[%d]): arguments are not a JSON object (%v); --lenient wraps them as {\"_raw\": ...}",
							c.ID, i, err)
					}
					r.req.Warn("record %s: tool call %s: arguments are not a JSON object; sent as {\"_raw\": ...}", rec.ID, c.ID)
					in, _ = json.Marshal(map[string]string{"_raw": c.Arguments})
				}
				call.Input = in
			}
			t.Calls = append(t.Calls, call)
		}
		addProviderData(t, r.req.Provider, rec)
		r.leadInto(t)
		r.asst, r.asstID = t, rec.ID
		clear(r.answered)
	default:
		return fmt.Errorf("record %s: unknown role %q", rec.ID, m.Role)
	}
	return nil
}

func (r *Renderer) addResult(rec *transcript.Record) error {
	m := &rec.Message
	var call *Call
	if r.asst != nil && !r.answered[m.ToolCallID] {
		for i := range r.asst.Calls {
			if r.asst.Calls[i].ID == m.ToolCallID {
				call = &r.asst.Calls[i]
				break
			}
		}
	}
	if call == nil {
		if !r.req.Lenient {
			return inputError(rec.ID, "tool result for %s answers no tool call of the assistant message before it; --lenient drops it", m.ToolCallID)
		}
		r.req.Warn("record %s: dropped the tool result for %s: it answers no tool call of the assistant message before it", rec.ID, m.ToolCallID)
		return nil
	}
	r.answered[call.ID] = true
	name := m.Name
	if name == "" {
		name = call.Name // gemini, vercel and vercel-legacy need it
	}
	if r.user == nil {
		r.user = r.newTurn(transcript.RoleUser)
	}
	r.user.Results = append(r.user.Results, Result{ID: rec.ID, CallID: call.ID, Name: name, Texts: appendTexts(nil, m.Contents), IsError: m.IsError})
	return nil
}

// NoResult is the result a tool call is sent with when it got none before
// the next assistant record or the end of the view: an agent interrupted
// (the user spoke before the tool answered), or a call still running. Every
// provider refuses a call without its result; none refuses this.
const NoResult = "[no result: interrupted]"

// flush completes the pending assistant turn and the user turn after it;
// end says the view ends there.
func (r *Renderer) flush(end bool) error {
	if a := r.asst; a != nil {
		var missing []string
		for _, c := range a.Calls {
			if r.answered[c.ID] {
				continue
			}
			missing = append(missing, c.ID)
			if r.user == nil {
				r.user = r.newTurn(transcript.RoleUser)
			}
			// The call's id stands for the record a result would have had.
			r.user.Results = append(r.user.Results, Result{ID: c.ID, CallID: c.ID, Name: c.Name, Texts: []string{NoResult}})
		}
		if len(missing) > 0 {
			// In the calls' order, as a provider that pairs results with
			// calls by place (ollama: no ids) needs them.
			place := make(map[string]int, len(a.Calls))
			for i, c := range a.Calls {
				place[c.ID] = i
			}
			slices.SortStableFunc(r.user.Results, func(x, y Result) int { return place[x.CallID] - place[y.CallID] })
		}
		if len(missing) > 0 && end && len(r.user.Texts) == 0 {
			// Nothing came after the calls: their results may be on the way.
			r.req.Warn("record %s: tool call(s) %s have no result yet: sent with the result %q", r.asstID, strings.Join(missing, ", "), NoResult)
		}
		r.emit(a)
	}
	if r.user != nil {
		r.emit(r.user)
	}
	r.asst, r.user = nil, nil
	return r.j.err
}

// emit passes on a complete turn, merging it into the held one when both
// have the same role, so the output always alternates, user first.
func (r *Renderer) emit(t *Turn) {
	if t.empty() {
		return
	}
	if h := r.held; h != nil && h.Role == t.Role {
		h.Results = append(h.Results, t.Results...)
		for _, o := range t.Items {
			if o.call == "" && o.text >= 0 {
				o.text += len(h.Texts)
			}
			h.Items = append(h.Items, o)
		}
		if h.ID == "" {
			h.ID = t.ID
		}
		h.Texts = append(h.Texts, t.Texts...)
		h.Calls = append(h.Calls, t.Calls...)
		return
	}
	if r.held == nil && !r.started && t.Role == transcript.RoleAssistant && !t.lead {
		// Rule 2 holds for stored transcripts; this covers a lenient repair
		// that emptied the first user turn, and the answer after a
		// compaction rendered for another provider. (A compaction's own
		// items go first: its provider resumes from them.)
		r.held = &Turn{Role: transcript.RoleUser, ID: "placeholder", Texts: []string{transcript.FakeContent}}
	}
	if r.held != nil {
		r.write(r.held)
	}
	r.held = t
}

func (r *Renderer) write(t *Turn) {
	r.start()
	r.wire.turn(r.j, t)
	*t = Turn{Calls: t.Calls[:0], Results: t.Results[:0]}
	r.free = append(r.free, t)
}

// newTurn recycles written turns: a long conversation then renders with
// a handful of allocations a record.
func (r *Renderer) newTurn(role transcript.Role) *Turn {
	if n := len(r.free); n > 0 {
		t := r.free[n-1]
		r.free = r.free[:n-1]
		t.Role = role
		return t
	}
	return &Turn{Role: role}
}

func (r *Renderer) start() {
	if r.started {
		return
	}
	r.started = true
	r.wire.open(r.j, &r.req, systemParts(r.req.System, r.req.Summary))
}

// Close writes what is held and the end of the payload, and flushes.
func (r *Renderer) Close() error {
	r.flushLead()
	if err := r.flush(true); err != nil {
		return err
	}
	if r.held != nil {
		r.write(r.held)
		r.held = nil
	}
	r.start()
	r.wire.close(r.j)
	r.j.raw("\n")
	if err := r.j.flush(); err != nil {
		return err
	}
	if b := r.Betas(); len(b) > 0 && r.req.Header != nil {
		r.req.Header("anthropic-beta", strings.Join(b, ","))
	}
	return nil
}
