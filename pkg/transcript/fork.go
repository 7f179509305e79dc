package transcript

import (
	"encoding/json"
	"slices"
)

// AuxForkedFrom is the metadata.aux key under which a forked record keeps
// the id it had in the conversation it was copied from.
const AuxForkedFrom = "forkedFrom"

// Forker copies records into a new conversation: each gets a new id, keeps
// its old one under aux.forkedFrom, and a summary's summaryIds are remapped
// to the new ids of the records it covers. Feed records in transcript order,
// so a summary comes after what it covers and ids stay in creation order.
type Forker struct {
	Conversation string
	IDs          *IDs
	Now          func() int64
	ids          map[string]string
}

// NewForker returns a Forker into conversation.
func NewForker(conversation string, ids *IDs, now func() int64) *Forker {
	return &Forker{Conversation: conversation, IDs: ids, Now: now, ids: map[string]string{}}
}

// Fork returns the copy of r. A summaryIds entry naming a record that was
// not fed (one deleted with --delete-originals) is kept as it is: it names
// a record the fork does not hold, as it did in the source.
func (f *Forker) Fork(r Record) Record {
	c := r.Clone()
	c.ID = f.IDs.New(f.Now())
	c.Conversation = f.Conversation
	f.ids[r.ID] = c.ID
	for i, id := range c.Metadata.SummaryIDs {
		if n, ok := f.ids[id]; ok {
			c.Metadata.SummaryIDs[i] = n
		}
	}
	if c.Metadata.Aux == nil {
		c.Metadata.Aux = map[string]json.RawMessage{}
	}
	c.Metadata.Aux[AuxForkedFrom] = json.RawMessage(AppendString(nil, r.ID))
	return c
}

// NewID returns the id the fork gave to the record whose id was old.
func (f *Forker) NewID(old string) (string, bool) {
	id, ok := f.ids[old]
	return id, ok
}

// Covers reports whether summary lists any of ids in its summaryIds.
func Covers(summary *Record, ids map[string]bool) bool {
	return slices.ContainsFunc(summary.Metadata.SummaryIDs, func(id string) bool { return ids[id] })
}

// Annotation is a change to the metadata of a stored record (annotate):
// timing keys to set, aux keys to set and aux keys to remove. The message
