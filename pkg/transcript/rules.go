package transcript

import (
	"encoding/json"
	"slices"
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
	// openSize is RecordSize(open), -1 when not known (Append does not
	// follow it; TryAppend measures it when it needs it).
	openSize int
}

// NewAppender returns an Appender continuing a transcript whose open record
// is open (nil for an empty transcript or one ending in a summary).
func NewAppender(conversation string, open *Record, ids *IDs, now func() int64) *Appender {
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
			a.open = nil
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
	if a.open == nil && r.Message.Role != RoleUser {
		// The fake's id is made first so ids sort in transcript order.
		fake := Placeholder(a.IDs.New(now), r.Metadata.Timing.Creation)
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

// Span is what a new summary may cover (rule 5).
type Span struct {
	// Covered are indexes into the transcript, in order: the previous summary
	// first when there is one, then the records folded in.
	Covered []int
	// Anchor is the index of the record the summary is placed right after.
	Anchor int
	// Placeholder: the cut falls inside a turn, so the first record sent
	// after the summary is no user's; rule 2's placeholder goes right
	// after the summary (see Placeholder).
	Placeholder bool
}

// Placeholder is rule 2's placeholder user record, made with id and
// creation time.
func Placeholder(id string, creation int64) Record {
	return Record{
		ID:       id,
		Message:  Message{Role: RoleUser, Contents: []string{FakeContent}},
		Metadata: Metadata{Attribute: []string{AttrFake}, Timing: Timing{Creation: creation}},
	}
}

// Empty reports whether the span covers nothing new: no record at all, or
// only the previous summary.
func (s Span) Empty() bool { return len(s.Covered) == 0 }

// SummarySpan tells which records of recs (a whole transcript, in order) a
// new summary may cover while keeping the last keepLast turns verbatim.
// A turn is a user record and everything up to the next user record; a
// last user record nobody answered is no turn and is never covered. The
// cut falls only on a turn boundary, never between an assistant tool call
// and its results, and never after a call whose results have not arrived.
// Fake and system records are never covered.
func SummarySpan(recs []Record, keepLast int) Span {
	return SummarySpanOf(len(recs), func(i int) SpanRecord {
		return SpanRecordOf(&recs[i])
	}, keepLast, 0)
}

// SpanRecordOf is what SummarySpanOf needs of r, its tokens aside.
func SpanRecordOf(r *Record) SpanRecord {
	sr := SpanRecord{Role: r.Message.Role, Fake: r.IsFake(), ToolCallID: r.Message.ToolCallID}
	for _, c := range r.Message.ToolCalls {
		sr.CallIDs = append(sr.CallIDs, c.ID)
	}
	return sr
}

// SpanRecord is what SummarySpanOf needs to know of a record: a caller
// that streams a long transcript keeps this much of each record, not the
// record.
type SpanRecord struct {
	Role       Role
	Fake       bool
	ToolCallID string   // a tool result's call
	CallIDs    []string // the ids of an assistant record's tool calls
	Tokens     int      // what the LLM is sent of it (for keepTokens)
}

// SummarySpanOf is SummarySpan over n records that at describes, the kept
// window bounded by keepTokens too (0: no bound): when the last keepLast
// turns hold more, the cut moves forward into them, to the first place
// between complete tool call/result pairs from which the rest fits (or,
// when none does, the last such place), keeping at least the last record.
func SummarySpanOf(n int, at func(i int) SpanRecord, keepLast, keepTokens int) Span {
	prev := -1
	for i := n - 1; i >= 0; i-- {
		if at(i).Role == RoleSummary {
			prev = i
			break
		}
	}
	start := prev + 1
	end := n
	for i := n - 1; i >= start; i-- {
		role := at(i).Role
		if role == RoleSystem {
			continue
		}
		if role == RoleUser {
			end = i // unanswered: neither a turn nor coverable
		}
		break
	}
	var turns []int
	for i := start; i < end; i++ {
		if at(i).Role == RoleUser {
			turns = append(turns, i)
		}
	}
	cut := end
	if keepLast > 0 {
		cut = start // every turn kept, unless keepTokens moves the cut
		if keepLast < len(turns) {
			cut = turns[len(turns)-keepLast]
		}
	}
	// Move the cut back past any call whose results are not all before it.
	for moved := true; moved; {
		moved = false
		answered := map[string]bool{}
		for i := start; i < cut; i++ {
			if r := at(i); r.Role == RoleTool {
				answered[r.ToolCallID] = true
			}
		}
		for i := start; i < cut && !moved; i++ {
			for _, c := range at(i).CallIDs {
				if !answered[c] {
					cut = turnStart(turns, i, start)
					moved = true
					break
				}
			}
		}
	}
	if keepTokens > 0 {
		cut = boundWindow(at, start, cut, end, n, keepTokens)
	}
	var covered []int
	for i := start; i < cut; i++ {
		if r := at(i); r.Role != RoleSystem && !r.Fake {
			covered = append(covered, i)
		}
	}
	if len(covered) == 0 {
		return Span{Anchor: -1}
	}
	anchor := covered[len(covered)-1]
	if prev >= 0 {
		covered = slices.Insert(covered, 0, prev)
	}
	span := Span{Covered: covered, Anchor: anchor}
	for i := anchor + 1; i < n; i++ {
		if r := at(i); r.Role != RoleSystem {
			span.Placeholder = r.Role != RoleUser
			break
		}
	}
	return span
}

// boundWindow moves cut forward, up to end, while the records from it to
// n hold more than keepTokens: to the first place p where they fit, or
// else the last place short of n, p a place a cut may fall (see cutsAt).
func boundWindow(at func(i int) SpanRecord, start, cut, end, n, keepTokens int) int {
	kept := 0
	for i := cut; i < n; i++ {
		kept += at(i).Tokens
	}
	if kept <= keepTokens {
		return cut
	}
	open := map[string]bool{} // calls made before p and not yet answered
	for i := start; i < cut; i++ {
		r := at(i)
		for _, c := range r.CallIDs {
			open[c] = true
		}
		delete(open, r.ToolCallID)
	}
	best := cut
	for p := cut; p < min(end, n-1); p++ {
		r := at(p)
		kept -= r.Tokens
		for _, c := range r.CallIDs {
			open[c] = true
		}
		delete(open, r.ToolCallID)
		// A cut before p+1: p+1 is no tool result, and every call made
		// before it is answered before it.
		if next := at(p + 1); next.Role == RoleTool || len(open) > 0 {
			continue
		}
		best = p + 1
		if kept <= keepTokens {
			break
		}
	}
	return best
}

// turnStart returns the start of the turn holding index i.
func turnStart(turns []int, i, start int) int {
	s := start
	for _, t := range turns {
		if t > i {
			break
		}
		s = t
	}
	return s
}

// CoveredIDs returns the ids of the records a span covers, in order.
func CoveredIDs(recs []Record, s Span) []string {
	ids := make([]string, len(s.Covered))
	for i, j := range s.Covered {
		ids[i] = recs[j].ID
	}
	return ids
}

// PlaceSummary returns recs with summary placed right after the span's
// anchor, and the records of after (a span's placeholder) right after it.
// With deleteCovered the covered records are left out (the previous
// summary among them).
func PlaceSummary(recs []Record, summary Record, s Span, deleteCovered bool, after ...Record) []Record {
	gone := map[int]bool{}
	if deleteCovered {
		for _, i := range s.Covered {
			gone[i] = true
		}
	}
	out := make([]Record, 0, len(recs)+1)
	for i, r := range recs {
		if !gone[i] {
			out = append(out, r)
		}
		if i == s.Anchor {
			out = append(out, summary)
			out = append(out, after...)
		}
	}
	return out
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
