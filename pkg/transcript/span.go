package transcript

import "slices"

// What a summary may cover (rule 5), and where it goes.

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
