package transcript

import (
	"encoding/json"
)

// AuxForkedFrom is the metadata.aux key under which a forked record keeps
// the id it had in the conversation it was copied from.
const AuxForkedFrom = "forkedFrom"

// Forker copies records into a new conversation: each gets a new id and
// keeps its old one under aux.forkedFrom. Feed records in transcript order,
// so that ids stay in creation order.
type Forker struct {
	Conversation string
	IDs          *IDs
	Now          func() int64
}

// NewForker returns a Forker into conversation.
func NewForker(conversation string, ids *IDs, now func() int64) *Forker {
	return &Forker{Conversation: conversation, IDs: ids, Now: now}
}

// Fork returns the copy of r. A summary's summaryIds are remapped through
// newIDs (old id to the id its copy got); an entry it does not hold (a
// record deleted with --delete-originals) is kept as it is: it names a
// record the fork does not hold, as it did in the source. The caller keeps
// the mapping, so that a fork of any length need not hold every id.
func (f *Forker) Fork(r Record, newIDs map[string]string) Record {
	return ForkAs(r, f.IDs.New(f.Now()), f.Conversation, newIDs)
}

// Annotation is a change to the metadata of a stored record (annotate):
// timing keys to set, aux keys to set and aux keys to remove. The message

// ForkAs returns the copy of r with id in conversation, its old id under
// aux.forkedFrom and its summaryIds remapped through newIDs: what Fork
// does with an id made elsewhere (a fork numbered inside the store).
func ForkAs(r Record, id, conversation string, newIDs map[string]string) Record {
	c := r.Clone()
	c.ID = id
	c.Conversation = conversation
	RemapSummaryIDs(&c, newIDs)
	if c.Metadata.Aux == nil {
		c.Metadata.Aux = map[string]json.RawMessage{}
	}
	c.Metadata.Aux[AuxForkedFrom] = json.RawMessage(AppendString(nil, r.ID))
	return c
}

// RemapSummaryIDs maps r's summaryIds through newIDs; an entry it does not
// hold stays (see Fork).
func RemapSummaryIDs(r *Record, newIDs map[string]string) {
	for i, id := range r.Metadata.SummaryIDs {
		if n, ok := newIDs[id]; ok {
			r.Metadata.SummaryIDs[i] = n
		}
	}
}
