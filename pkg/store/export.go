package store

import "github.com/convo-cli/convo/pkg/export"

// ExportOptions choose what Export reads of a conversation.
type ExportOptions struct {
	// Sink, when set, makes the export incremental: it reads only the records
	// whose current version the sink was not sent, and the returned Mark
	// moves the sink's cursor. Empty reads every record and moves nothing.
	Sink string
	// ExcludeLast holds back the conversation's last record in transcript
	// order, which may still be merged; a later export sends it.
	ExcludeLast bool
}

// Cursor is what a sink was sent of one conversation (export.Cursor): the
// export package owns it, as the --ack token it encodes carries cursors.
type Cursor = export.Cursor

// Mark is where an incremental export leaves a sink's cursor: hand it to
// Commit once the records read are safe (written and flushed, or accepted by
// a server). Only the store fills it.
type Mark struct {
	Conversation, Sink string
	// Records counts the records the export read.
	Records int
	// Created tells a cleared and re-created conversation apart.
	Created int64
	// From is the cursor the export found, To the one Commit sets.
	From, To Cursor
}

// ExportFile is what the store knows of a log file an export appends to
// (--to file://PATH), so that a torn last line is cut only when an export
// of this store left it: the file (Dev, Inode) at Path on Host, and its
// length. Writing says an export was appending past Size and has not
// completed: killed, it may have left a torn line there. Without it, Size
// is where the last export to complete left the file.
type ExportFile struct {
	Host, Path string
	Dev, Inode uint64
	Size       int64
	Writing    bool
	Updated    int64 // ms since the epoch; set by SetExportFile
}

// SinkStatus is where one export sink stands on a conversation.
type SinkStatus struct {
	Sink    string
	Seq     int64 // the change sequence sent
	Held    bool  // an --exclude-last export held the last record back
	Pending int64 // records an incremental export would send now
	Updated int64 // ms since the epoch of the last export
}

// AckToken is the --ack token (export's codec) of an export to sink that
// left marks: what --commit-cursor moves.
func AckToken(sink string, marks []Mark) string {
	a := export.Ack{Sink: sink}
	for _, m := range marks {
		a.Marks = append(a.Marks, export.AckMark{Conversation: m.Conversation, Created: m.Created, From: m.From, To: m.To})
	}
	return export.EncodeAck(a)
}

// ParseAckToken reads a token AckToken made: its sink and marks. A token
// it cannot read is an *export.AckError.
func ParseAckToken(tok string) (sink string, marks []Mark, err error) {
	a, err := export.ParseAck(tok)
	if err != nil {
		return "", nil, err
	}
	for _, m := range a.Marks {
		marks = append(marks, Mark{Conversation: m.Conversation, Sink: a.Sink, Created: m.Created, From: m.From, To: m.To})
	}
	return a.Sink, marks, nil
}
