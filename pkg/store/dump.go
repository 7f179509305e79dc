package store

// Dumped is one piece of a conversation as Dump streams it: first the
// conversation itself (Conversation set), then its records in transcript
// order, absorbed ids, export cursors, import cursors, answer schema,
// pending batch requests and token figures. Exactly one field is set per piece; a Record's
// Body is valid until the next piece.
type Dumped struct {
	Conversation *DumpedConversation
	Record       *DumpedRecord
	Absorbed     *DumpedAbsorbed
	Cursor       *DumpedCursor
	Schema       *ConversationSchema
	Batch        *BatchRequest
	Import       *DumpedImportCursor
	// Deleted is a record of the conversation convo deleted, remembered
	// so that import does not bring it back (import_deleted).
	Deleted *DumpedDeleted
	// Figure is a token figure of the conversation's view that was up to
	// date when dumped (a cache, carried so that the target need not
	// count every record again).
	Figure *DumpedFigure
}

// DumpedFigure is the tokens of a conversation's view by one tokenizer,
// and of its last non-system record (the one a merge may change).
type DumpedFigure struct {
	Tokenizer          string
	Tokens, LastTokens int64
	LastID             string
}

// DumpedDeleted is the id of a deleted imported record, and when it went.
type DumpedDeleted struct {
	ID      string
	Deleted int64
}

// DumpedConversation is a conversation's own row: its counters and times.
type DumpedConversation struct {
	ID               string
	Created, Updated int64
	NextPos, NextSeq int64
}

// DumpedRecord is one stored record with its place and change sequence.
type DumpedRecord struct {
	ID            string
	Pos, Sub, Seq int64
	Role          string
	Created       int64
	Body          []byte
}

// DumpedAbsorbed is an id merged into another record.
type DumpedAbsorbed struct{ ID, Target string }

// DumpedCursor is one export sink's cursor.
type DumpedCursor struct {
	Sink               string
	Seq, Held, Updated int64
}
