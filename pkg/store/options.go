package store

import (
	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/transcript"
)

// AppendResult says what an append did. Records changed by it carry change
// sequences in (FromSeq, ToSeq].
type AppendResult struct {
	FromSeq, ToSeq            int64
	Inserted, Merged, Skipped int
	// Deleted (ImportAppend): records left out because convo deleted
	// them before (import_deleted).
	Deleted int
	// State (ImportAppend): the conversation as the append left it, for
	// the next append of the same import (ImportCursor.After).
	State ImportState
}

// Last is a conversation's last record as a read found it: its id and
// change sequence (a merge into it changes the sequence).
type Last struct {
	ID  string
	Seq int64
}

// Row is one stored record as read. Body is the canonical JSON record; it is
// valid only until the callback returns.
type Row struct {
	Pos, Sub, Seq int64
	Role          string
	Body          []byte
}

// ReadOptions narrows a read. The zero value reads every record.
type ReadOptions struct {
	// Limit keeps only the newest Limit records (still returned oldest first).
	Limit int
	// BeforeID keeps the records before this record in transcript order.
	BeforeID string
	// BeforeTime keeps the records created before this instant (ms).
	BeforeTime int64
	// FromLatestSummary starts at the latest summary (included).
	FromLatestSummary bool
	// AfterSeq and UpToSeq, when set, keep records whose last change has a
	// change sequence in (AfterSeq, UpToSeq].
	AfterSeq, UpToSeq int64
}

// Place is a record's place in transcript order.
type Place struct{ Pos, Sub int64 }

// ConversationInfo describes one stored conversation.
type ConversationInfo struct {
	ID               string
	Created, Updated int64 // ms since the epoch
	Records          int64
}

// ConversationFigures is what list shows of a conversation: its last
// activity (the newest record's creation time, ms since the epoch; its own
// creation time when it holds none) and its LLM view's tokens, when the
// store holds them up to date (TokensKnown).
type ConversationFigures struct {
	ConversationInfo
	LastActivity int64
	Tokens       int64
	TokensKnown  bool
}

// SummaryWrite is a summary to store and what it was planned on.
type SummaryWrite struct {
	Anchor  string // the record the summary goes right after
	Summary *transcript.Record
	// Placeholder, when set, is rule 2's placeholder stored right after
	// the summary: the summary's cut fell inside a turn.
	Placeholder   *transcript.Record
	DeleteCovered bool // delete the records summaryIds lists, in the same transaction
	// Checked when set: the latest summary is still PreviousID ("" for
	// none) and no covered record changed after change sequence ReadSeq;
	// otherwise ErrConflict and nothing is written.
	Check      bool
	PreviousID string
	ReadSeq    int64
	// BatchRequest, when set, is the pending batch request (its custom_id)
	// the summary answers: dropped in the same transaction.
	BatchRequest string
}

// ForkOptions choose what Fork copies.
type ForkOptions struct {
	// At names the last record copied (an id or a Ref); empty copies all.
	At string
	// Force replaces the target conversation when it exists; without it
	// an existing target is ErrExists.
	Force bool
}

// ForkResult says what a fork did.
type ForkResult struct {
	Records  int   // records copied
	Replaced int64 // records of the target deleted first (with Force)
}

// RewindOptions say what Rewind does with what it removes.
type RewindOptions struct {
	// DryRun removes nothing: Removed still sees what would go.
	DryRun bool
	// Removed, when set, is called for each removed record, in transcript
	// order, inside the transaction.
	Removed func(Row) error
	// Written, when set, is called after the last Removed and before the
	// transaction commits: flush the output there, so records are removed
	// only once they were written out.
	Written func() error
}

// RewindResult says what a rewind removed.
type RewindResult struct {
	Records   int // records removed, summaries included
	Summaries int // of which summaries
}

// PruneOptions choose what Prune removes.
type PruneOptions struct {
	// Before, when set, selects the conversations whose last activity (ms
	// since the epoch) is older than it.
	Before int64
	// Glob, when set, selects the conversations whose id matches it
	// (* any characters, ? one, [abc] a set; case-sensitive).
	Glob string
	// KeepSummaries trims each selected conversation to its latest summary,
	// the records after it and its latest system record, instead of deleting
	// it; a conversation without a summary is left alone.
	KeepSummaries bool
	DryRun        bool
	// BatchBefore, when set, drops the pending batch requests written
	// before it (ms since the epoch), whatever conversations are selected.
	BatchBefore int64
}

// Pruned is what Prune did (or, in a dry run, would do) to one conversation.
type Pruned struct {
	Conversation string
	Deleted      bool  // deleted whole; otherwise trimmed
	Records      int64 // records removed
}

// PruneResult tallies a prune.
type PruneResult struct {
	Conversations []Pruned
	Deleted       int   // conversations deleted
	Trimmed       int   // conversations trimmed
	Records       int64 // records removed
	Vacuumed      bool
	FreedBytes    int64 // file bytes given back by compaction
	BatchDropped  int64 // pending batch requests dropped by age (BatchBefore)
}

// Status is what a cron job needs to know of a conversation.
type Status struct {
	Summaries            int64
	LatestSummary        string // "" when none
	LatestSummaryCreated int64
	// AfterSummary counts the records after the latest summary (every
	// record when there is none).
	AfterSummary int64
	Exports      []SinkStatus
}

// ConversationSchema is the JSON Schema a conversation's answers must match
// (ask's "single schema" mode): every ask uses it unless the call gives its
// own schema or none.
type ConversationSchema struct {
	// Name is what the provider is told the schema is called.
	Name string
	// Body is the schema document as it was given.
	Body []byte
	// Updated is when it was set, in ms since the epoch.
	Updated int64
}

// SearchOptions are what Search looks for.
type SearchOptions struct {
	Query *search.Query
	// Conversation and Role, when set, narrow to one conversation, one role.
	Conversation, Role string
	// Since and Until (ms, 0: unbounded) keep records created at or after
	// Since and before Until.
	Since, Until int64
	Limit        int
	// Progress, when set, hears how far the index got when the search
	// brings it up to date first (records indexed, of about how many).
	Progress func(done, total int64)
}

// SearchHit is one record Search found.
type SearchHit struct {
	Conversation string
	Row
	Created int64
	// Doc is the record's searchable text as read for matching (snippets
	// and rank use it); valid only until the callback returns, as Body.
	Doc *search.Doc
}
