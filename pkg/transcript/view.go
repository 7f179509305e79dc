package transcript

// View is what the LLM is given of a transcript (rule 4).
type View struct {
	System   *Record  // the latest system record, if any
	Summary  *Record  // the latest summary, if any
	Messages []Record // the records after the latest summary, less system and summary records
}

// ViewPart is the part a record plays in the LLM view (rule 4).
type ViewPart uint8

const (
	// ViewSystem: a system record, the prompt handed to the provider apart
	// from the messages; the latest one wins.
	ViewSystem ViewPart = iota
	// ViewSummary: the latest summary, whose text goes with the system
	// prompt, never as a message.
	ViewSummary
	// ViewFirst: the first message sent (rule 2 makes it a user's).
	ViewFirst
	// ViewMessage: a later message sent.
	ViewMessage
)

// Sent reports whether a record of this part is sent as a message.
func (p ViewPart) Sent() bool { return p >= ViewFirst }

// ViewFilter sorts records into their parts of the view one at a time,
// holding none of them, so a stored conversation streams through it in
// constant memory. Feed it in transcript order from the latest summary on,
// as the store reads a conversation for the LLM; fed from an earlier
// record, each summary starts the view again, so what came before it was
// not part of the view after all. The zero value is ready to use.
type ViewFilter struct{ sent int }

// Add returns the part a record of role plays.
func (f *ViewFilter) Add(role Role) ViewPart {
	switch role {
	case RoleSystem:
		return ViewSystem
	case RoleSummary:
		f.sent = 0
		return ViewSummary
	}
	f.sent++
	if f.sent == 1 {
		return ViewFirst
	}
	return ViewMessage
}

// Sent counts the messages fed since the latest summary.
func (f *ViewFilter) Sent() int { return f.sent }

// ViewBuilder builds a View from records fed in transcript order, holding
// only the records after the latest summary.
type ViewBuilder struct {
	f ViewFilter
	v View
}

// Add feeds the next record.
func (b *ViewBuilder) Add(r Record) {
	switch b.f.Add(r.Message.Role) {
	case ViewSystem:
		b.v.System = &r
	case ViewSummary:
		b.v.Summary = &r
		b.v.Messages = b.v.Messages[:0]
	default:
		b.v.Messages = append(b.v.Messages, r)
	}
}

// View returns the view of what was fed.
func (b *ViewBuilder) View() View { return b.v }

// BuildView returns the view of a whole transcript.
func BuildView(recs []Record) View {
	var b ViewBuilder
	for _, r := range recs {
		b.Add(r)
	}
	return b.View()
}

// LatestSummary returns the index of the latest summary in recs, or -1.
func LatestSummary(recs []Record) int {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Message.Role == RoleSummary {
			return i
		}
	}
	return -1
}

// FirstSent returns the index of the first record the LLM is sent, or -1.
func FirstSent(recs []Record) int {
	var f ViewFilter
	for i := LatestSummary(recs) + 1; i < len(recs); i++ {
		if f.Add(recs[i].Message.Role) == ViewFirst {
			return i
		}
	}
	return -1
}
