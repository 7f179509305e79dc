package store

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
}

// DumpedImportCursor is an import cursor as Dump gives it (copy).
type DumpedImportCursor = ImportCursor
