package store

// BatchRequest is a request summarize --batch-out wrote and recorded, so
// that --batch-in can apply its result with nothing but the result file.
type BatchRequest struct {
	CustomID     string
	Conversation string
	ReadSeq      int64  // the store's change sequence when the conversation was read
	FirstID      string // the first record the summary will cover
	LastID       string // the last one
	Covered      int64  // how many records it will cover
	Summarizer   string
	Model        string
	Options      []byte // the summarize options that shape the summary (JSON)
	Created      int64  // ms since the epoch
}
