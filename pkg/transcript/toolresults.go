package transcript

// toolResults follows, record by record, which tool calls of the latest
// assistant record are still unanswered, as render pairs results with
// calls: a result answers a call of the assistant record before it
// (consecutive assistant records merge into one), once.
type toolResults struct {
	known         bool            // open holds every unanswered call
	open          map[string]bool // the calls awaiting a result
	lastAssistant bool            // the last record (system aside) was an assistant's
}

func (t *toolResults) observe(r *Record) {
	m := &r.Message
	switch m.Role {
	case RoleSystem:
		return
	case RoleSummary:
		t.known, t.open = true, nil
	case RoleAssistant:
		if !t.lastAssistant {
			t.open = nil
		}
		for _, c := range m.ToolCalls {
			if t.open == nil {
				t.open = map[string]bool{}
			}
			t.open[c.ID] = true
		}
		t.known = true
	case RoleTool:
		delete(t.open, m.ToolCallID)
	}
	t.lastAssistant = m.Role == RoleAssistant
}

// CheckToolResult checks a tool result r to be appended after before (the
// conversation's last records; whole when they are all of it), as
// CheckAppend does for a decoder's: it must answer an unanswered call of
// the assistant record before it.
func CheckToolResult(before []Record, whole bool, r *Record) error {
	t := toolResults{known: whole}
	for i := range before {
		t.observe(&before[i])
	}
	return t.check(r)
}

func (t *toolResults) check(r *Record) error {
	if r.Message.Role != RoleTool || !t.known || t.open[r.Message.ToolCallID] {
		return nil
	}
	return fieldErr("message.tool_call_id", "%q answers no unanswered tool call of the assistant record before it; render would refuse it", r.Message.ToolCallID)
}
