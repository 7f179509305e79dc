package transcript

import (
	"encoding/json"
)

// DefaultConversation names the conversation of records read on stdin that
// name none, in commands that run without a store.
const DefaultConversation = "stdin"

// ChangeKind tells what appending did to a record.
type ChangeKind int

const (
	// Inserted: a new record stands at the end of the transcript.
	Inserted ChangeKind = iota
	// Merged: an existing record took the incoming one in (rule 1).
	Merged
)

// Change is one effect of an append. Record points into the Appender's state
// for Merged changes, so copy it before the next Append if you keep it.
type Change struct {
	Kind   ChangeKind
	Record *Record
	// Absorbed is the id the incoming record carried when it was merged away,
	// so a retry with the same id can be recognised.
	Absorbed string
}

// Appender applies rules 1 to 3 to records appended at the end of a
// transcript. It needs to know only the open record: the last non-system
// record after the latest summary.
type Appender struct {
	// Conversation is set on every record; empty means "take it from the
	// first record, or DefaultConversation".
	Conversation string
	IDs          *IDs
	Now          func() int64
	open         *Record
	// compacted: the latest record is a provider compaction, after which
	// rule 2 inserts no placeholder.
	compacted bool
	// openSize is RecordSize(open), -1 when not known (Append does not
	// follow it; TryAppend measures it when it needs it).
	openSize int
}

// NewAppender returns an Appender continuing a transcript whose open record
// is open (nil for an empty transcript or one ending in a summary).
func NewAppender(conversation string, open *Record, ids *IDs, now func() int64) *Appender {
	if open != nil && open.IsCompaction() {
		// A store's last record, a compaction: nothing merges into it.
		return &Appender{Conversation: conversation, IDs: ids, Now: now, compacted: true, openSize: -1}
	}
	if open != nil {
		c := open.Clone()
		open = &c
	}
	return &Appender{Conversation: conversation, IDs: ids, Now: now, open: open, openSize: -1}
}

// Append applies the rules to r and returns what changed: possibly a fake
// user record, then either r inserted or the open record with r merged in.
// It checks no size: what reads input uses TryAppend.
func (a *Appender) Append(r Record) []Change {
	changes, _ := a.add(r, false)
	return changes
}

// TryAppend is Append refusing, with an *InputError and nothing changed,
// a record over MaxRecordBytes, or one whose merge (rule 1) would make
// the open record so: what convo writes, convo must read back.
func (a *Appender) TryAppend(r Record) ([]Change, error) { return a.add(r, true) }

// merges reports whether appending r merges it into the open record.
func (a *Appender) merges(r *Record) bool { return mergesInto(a.open, r) }

// mergesInto reports whether r merges into open, the last non-system
// record after the latest summary (nil for none): rule 1.
func mergesInto(open, r *Record) bool {
	role := r.Message.Role
	return open != nil && open.Message.Role == role && role != RoleTool && role != RoleSystem && role != RoleSummary
}

func (a *Appender) add(r Record, check bool) ([]Change, error) {
	size := -1
	if check {
		size = RecordSize(&r)
		if size > MaxRecordBytes {
			return nil, sizeError(&r, size)
		}
		if a.merges(&r) {
			if a.openSize < 0 {
				a.openSize = RecordSize(a.open)
			}
			if size = a.openSize + mergeDelta(a.open, &r); size > MaxRecordBytes {
				return nil, mergeError(a.open, &r, size)
			}
		}
	}
	if a.Conversation == "" {
		a.Conversation = r.Conversation
		if a.Conversation == "" {
			a.Conversation = DefaultConversation
		}
	}
	r.Conversation = a.Conversation
	now := a.Now()
	if r.Metadata.Timing.Creation == 0 {
		r.Metadata.Timing.Creation = now
	}
	switch r.Message.Role {
	case RoleSystem, RoleSummary:
		if r.Message.Role == RoleSummary {
			a.open, a.compacted = nil, r.IsCompaction()
		}
		if r.ID == "" {
			r.ID = a.IDs.New(now)
		}
		return []Change{{Kind: Inserted, Record: &r}}, nil
	}

	if a.merges(&r) {
		mergeInto(a.open, &r)
		a.openSize = size
		return []Change{{Kind: Merged, Record: a.open, Absorbed: r.ID}}, nil
	}
	var out []Change
	compacted := a.compacted
	a.compacted = false
	if a.open == nil && r.Message.Role != RoleUser && !compacted {
		// The fake's id: derived from the record it stands before when
		// that carries one (the same in every store), else made first so
		// that ids sort in transcript order.
		id := ""
		if r.ID != "" {
			id = PlaceholderID(r.ID)
		}
		if id == "" {
			id = a.IDs.New(now)
		}
		fake := Placeholder(id, r.Metadata.Timing.Creation)
		fake.Conversation = a.Conversation
		out = append(out, Change{Kind: Inserted, Record: &fake})
	}
	if r.ID == "" {
		r.ID = a.IDs.New(now)
	}
	a.open, a.openSize = &r, size
	return append(out, Change{Kind: Inserted, Record: &r}), nil
}

// mergeInto appends in to host as rule 1 says: contents and tool calls
// appended, one "merged" added, host's id and creation kept. Timing keys the
// host lacks and aux keys are taken from in.
func mergeInto(host, in *Record) {
	mergeProviderData(&host.Message, &in.Message)
	host.Message.Contents = append(host.Message.Contents, in.Message.Contents...)
	host.Message.ToolCalls = append(host.Message.ToolCalls, in.Message.ToolCalls...)
	for _, a := range in.Metadata.Attribute {
		if a == AttrMerged {
			host.Metadata.Attribute = append(host.Metadata.Attribute, a)
		}
	}
	host.Metadata.Attribute = append(host.Metadata.Attribute, AttrMerged)
	for _, k := range TimingKeys[1:] {
		if _, ok := host.Metadata.Timing.Get(k); ok {
			continue
		}
		if v, ok := in.Metadata.Timing.Get(k); ok {
			_ = host.Metadata.Timing.Set(k, v)
		}
	}
	if len(in.Metadata.Aux) > 0 {
		if host.Metadata.Aux == nil {
			host.Metadata.Aux = make(map[string]json.RawMessage, len(in.Metadata.Aux))
		}
		for k, v := range in.Metadata.Aux {
			host.Metadata.Aux[k] = v
		}
	}
}

// mergeProviderData moves the places of provider data for a merge of in
// into host (contents appended to contents, tool calls to tool calls), so
// that each item keeps its place beside the part it stood by. It runs
// before the parts are appended.
func mergeProviderData(host, in *Message) {
	if len(host.ProviderData)+len(in.ProviderData) == 0 {
		return
	}
	n1, m1, n2 := len(host.Contents), len(host.ToolCalls), len(in.Contents)
	for i := range host.ProviderData {
		d := &host.ProviderData[i]
		d.At = hostItemAt(d.At, n1, m1, n2)
	}
	for _, d := range in.ProviderData {
		d.At = inItemAt(d.At, n1, m1, n2)
		host.ProviderData = append(host.ProviderData, d)
	}
}

// hostItemAt is where an item of the host record at at stands after a
// merge: one at a call of the host, or at its end after its calls, moves
// past the n2 contents appended. n1 and m1 count the host's contents and
// calls.
func hostItemAt(at, n1, m1, n2 int) int {
	if at > n1 || at == n1 && m1 > 0 {
		return at + n2
	}
	return at
}

// inItemAt is where an item of the record merged in stands after the
// merge: its contents follow the host's contents, its calls the host's
// calls.
func inItemAt(at, n1, m1, n2 int) int {
	if at < n2 {
		return at + n1
	}
	return at + n1 + m1
}
