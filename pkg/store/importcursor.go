package store

import (
	"errors"
	"fmt"
)

// ImportCursor is how far convo import read one source (a file, by its
// absolute path) into one conversation: the file as it was then (Size,
// MTime in nanoseconds: a file unchanged since is skipped unread), how many
// entries of its active branch were imported and the source's own id of
// the last one (LastEntry: a later read whose branch no longer holds it
// there finds the branch moved), and Head, a hash of the file's first
// bytes (a file rewritten in place shows there). Resume, when not empty,
// says where the next read may start instead of the file's start: the
// importer's own (a JSON object of a byte offset, a hash of the bytes
// before it and what its format needs to go on), kept as given. A store
// moves it in the transaction that appends the records it covers, and
// never back.
type ImportCursor struct {
	Source, Conversation string
	Tool                 string // the format (claude-code, codex, ...) and its naming flag when not the default
	Size, MTime          int64
	Entries              int64
	LastEntry            string
	Head                 string
	Resume               string
	Updated              int64 // ms since the epoch; set by the store
	// After, when set (not stored), says this append continues one of
	// the same import: the conversation must still be as that one left
	// it (ImportAppend's result's State), else ErrInterleaved.
	After *ImportState
}

// ImportState is what an import append left of its conversation: when it
// was made and how many deletions of its records there were since.
type ImportState struct{ Created, Deletions int64 }

// InterleavedError: a conversation cleared, pruned or rewound between two
// appends of one import. The refused records (and Remembered, what the
// importer adds with RememberDeleted) are remembered as deleted.
type InterleavedError struct {
	Conversation string
	What         string // "cleared or pruned", "rewound, trimmed or summarized with --delete-originals"
}

func (e *InterleavedError) Error() string {
	return fmt.Sprintf("conversation %q was %s while this import was storing it", e.Conversation, e.What)
}

func (e *InterleavedError) Unwrap() error { return ErrInterleaved }

// ErrInterleaved is what every InterleavedError is.
var ErrInterleaved = errors.New("a deletion came between two appends of one import")

// DumpedImportCursor is an import cursor as Dump gives it (copy).
type DumpedImportCursor = ImportCursor
