// Package store is where conversations are kept: the Store interface every
// backend implements, the types its methods take and return, and its
// errors. The backends live below: sqlstore holds the transactional logic
// over database/sql, and sqlite (the default, one file) and postgres (a
// database many runners share) are its dialects. storetest is the
// conformance suite every backend passes.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Store keeps conversations. Every method that writes does so in one
// transaction: when it fails, nothing of the change is kept.
type Store interface {
	// Append adds the records of recs to the end of conv, applying the
	// rules of SPEC section 2, inside the transaction: recs runs while it
	// is open, and its error (or a write's) rolls everything back. The
	// records are kept past the yield: recs must not reuse them. A record
	// whose id the conversation already holds (or absorbed in a merge) is
	// skipped.
	Append(ctx context.Context, conv string, ids *transcript.IDs, recs transcript.Stream) (AppendResult, error)
	// AppendAfter is Append on the condition that last is still conv's last
	// record (Last{} for an empty or missing conversation): a call that read
	// the conversation, then waited on a provider, writes only if no other
	// writer changed its end meanwhile; otherwise ErrConflict, nothing written.
	AppendAfter(ctx context.Context, conv string, last Last, ids *transcript.IDs, recs transcript.Stream) (AppendResult, error)
	// Read calls fn for each record of conv opt selects, in transcript order,
	// streaming. A missing conversation is ErrNotFound (wrapped).
	Read(ctx context.Context, conv string, opt ReadOptions, fn func(Row) error) error
	// LatestSummary returns the place of conv's latest summary.
	LatestSummary(ctx context.Context, conv string) (Place, bool, error)
	// LatestSystem returns the body of conv's latest system record (nil: none).
	LatestSystem(ctx context.Context, conv string) ([]byte, error)
	// Conversations calls fn for every conversation, ordered by id.
	Conversations(ctx context.Context, fn func(ConversationInfo) error) error
	// Figures calls fn for every conversation, newest activity first, with
	// the figures list shows, token figures by the tokenizer key, in one
	// read: no record is read.
	Figures(ctx context.Context, key string, fn func(ConversationFigures) error) error
	// ViewTokens returns the tokens of conv's LLM view (its latest summary
	// and the records after it), count giving each record's, from a figure
	// kept per key (the tokenizer's name): only the records changed since it
	// was last brought up to date are counted. A missing conversation is
	// ErrNotFound (wrapped).
	ViewTokens(ctx context.Context, conv, key string, count func(role string, body []byte) (int, error)) (int, error)
	// ConversationIDs returns up to limit ids starting with prefix.
	ConversationIDs(ctx context.Context, prefix string, limit int) ([]string, error)
	// Clear deletes conv and everything stored for it, returning how many
	// records went.
	Clear(ctx context.Context, conv string) (int64, error)

	// WriteSummary stores a summary after its anchor (see SummaryWrite).
	WriteSummary(ctx context.Context, conv string, sw SummaryWrite) error
	// Annotate changes the metadata of the record ref names and returns the
	// record as stored.
	Annotate(ctx context.Context, conv, ref string, an *transcript.Annotation) ([]byte, error)
	// Fork copies src up to opt.At into a new conversation dst.
	Fork(ctx context.Context, src, dst string, opt ForkOptions, ids *transcript.IDs) (ForkResult, error)
	// Rewind removes the records of conv after the record to names.
	Rewind(ctx context.Context, conv, to string, opt RewindOptions) (RewindResult, error)
	// Prune removes or trims old conversations.
	Prune(ctx context.Context, opt PruneOptions) (PruneResult, error)
	// Status returns the summaries and export cursors of conv.
	Status(ctx context.Context, conv string) (Status, error)

	// Export calls fn for each record of conv opt selects, from one snapshot,
	// and returns the Mark to Commit once fn's output is safe.
	Export(ctx context.Context, conv string, opt ExportOptions, fn func(Row) error) (Mark, error)
	// Commit moves the cursors of marks, all or none (ErrCursorMoved).
	Commit(ctx context.Context, marks ...Mark) error
	// Advance moves the cursors of marks an export left for later (export
	// --ack) forward to each mark's To, in one transaction, and returns how
	// many moved. A cursor already at or past To stays (a repeated or stale
	// commit), and so does one of a conversation cleared since; a cursor
	// behind the mark's From is ErrCursorMoved, nothing moved: moving it
	// would skip what the export never sent.
	Advance(ctx context.Context, marks ...Mark) (int, error)
	// ExportFile returns what the store recorded of the log file path on
	// host (export --to file://); ok is false when nothing.
	ExportFile(ctx context.Context, host, path string) (f ExportFile, ok bool, err error)
	// SetExportFile records f, replacing what was recorded of its host and path.
	SetExportFile(ctx context.Context, f ExportFile) error
	// ExportConversations lists the conversations an incremental export to
	// sink may find something in ("" lists them all).
	ExportConversations(ctx context.Context, sink string) ([]string, error)
	// NextExport returns the place of the first record an incremental export
	// to sink would send.
	NextExport(ctx context.Context, conv, sink string) (Place, bool, error)
	// Cursor returns the change sequence already exported to sink.
	Cursor(ctx context.Context, conv, sink string) (int64, error)

	// RateSlot reserves the next request slot of the limiter key, shared by
	// every process using the store, and returns when it starts.
	RateSlot(ctx context.Context, key string, interval time.Duration) (time.Time, error)
	// Claim takes conv for owner unless another process holds it (ok
	// false), so that runners sharing the store work on each conversation
	// once. The claim lasts until release is called, or its process dies:
	// then others may take it at once (PostgreSQL: a session lock the
	// server drops with the connection) or within ClaimLease (SQLite: a
	// lease the holder renews while it works). A conversation whose last
	// holder finished it at or after since (ms; 0: any time is too long
	// ago) is refused too: runners sharing one pass skip what another
	// already did. release(finished) gives the claim up, recording the time
	// when the work was done.
	Claim(ctx context.Context, conv, owner string, since int64) (release func(finished bool), ok bool, err error)
	// ReleaseClaims gives up every claim owner holds, for a run that ends
	// without its workers releasing them (convo exiting at once).
	ReleaseClaims(ctx context.Context, owner string) error
	// HeldUntil returns when the last live lease among the claims on convs
	// lapses unless its holder renews it; zero when there is none (or
	// claims are no leases: they last as long as their holder).
	HeldUntil(ctx context.Context, convs []string) (time.Time, error)

	// SetSchema stores conv's answer schema, creating conv when needed.
	SetSchema(ctx context.Context, conv string, sc ConversationSchema) error
	// DeleteSchema removes conv's answer schema and says whether it had one.
	DeleteSchema(ctx context.Context, conv string) (bool, error)
	// Schema returns conv's answer schema; ok is false when it has none.
	Schema(ctx context.Context, conv string) (sc ConversationSchema, ok bool, err error)

	// Dump calls fn with everything stored for conv, rows streamed in
	// transcript order, from one snapshot (copy's source side).
	Dump(ctx context.Context, conv string, fn func(Dumped) error) error
	// Load stores one conversation exactly as Dump gave it, pulling the
	// pieces from next (the conversation first, io.EOF after the last) in
	// one transaction; an existing conversation is ErrExists unless replace.
	Load(ctx context.Context, replace bool, next func() (Dumped, error)) error

	// AddBatchRequests records the requests summarize --batch-out wrote, in
	// one transaction, replacing any of the same CustomID; a request whose
	// conversation no longer exists is not recorded.
	AddBatchRequests(ctx context.Context, reqs []BatchRequest) error
	// BatchRequests calls fn for each pending batch request, oldest first
	// (by Created, then CustomID).
	BatchRequests(ctx context.Context, fn func(BatchRequest) error) error
	// DropBatchRequests deletes the pending requests ids names and those
	// created before before (ms; 0: none by age), in one transaction, and
	// returns how many went.
	DropBatchRequests(ctx context.Context, before int64, ids ...string) (int64, error)
	// ImportAppend is Append for convo import: the records of recs go to
	// the end of conv and cur, the source's cursor for conv, is stored in
	// the same transaction, also when every record was already there. A
	// cursor already past cur (another import went further meanwhile)
	// stays: cursors never move back.
	ImportAppend(ctx context.Context, cur ImportCursor, ids *transcript.IDs, recs transcript.Stream) (AppendResult, error)
	// ImportAgain forgets what convo deleted of conv's imported records,
	// and conv's import cursors, so that the next import brings them back;
	// it returns how many records were remembered.
	ImportAgain(ctx context.Context, conv string) (int64, error)
	// RememberDeleted remembers ids as deleted records of conv (an import
	// that a deletion interrupted: what it had not stored yet).
	RememberDeleted(ctx context.Context, conv string, ids []string) error
	// ImportCursors calls fn for the cursors of source ("" every cursor),
	// ordered by source and conversation.
	ImportCursors(ctx context.Context, source string, fn func(ImportCursor) error) error
	// Search calls fn for each record o.Query matches (o's filters too),
	// newest first by creation time, up to o.Limit (0: all of them):
	// every record committed before it began, and none deleted. Where the
	// index catches up after the writes (SQLite), Search brings it up to
	// date first when it can write, and reads what it lacks itself when
	// it cannot; a store an older convo made has none, and a read-only
	// open refuses it (ErrOutdated).
	Search(ctx context.Context, o SearchOptions, fn func(SearchHit) error) error

	// IntegrityCheck checks the store's own invariants and the backend's.
	IntegrityCheck(ctx context.Context) error
	// Describe names the store for messages ("sqlite /path/convo.db").
	Describe() string
	Close() error
}

// ClaimLease is how long a claim outlives a killed holder where it is a
// lease; a live holder renews it every third of that.
const ClaimLease = 30 * time.Second

var (
	// ErrNotFound is a conversation or record that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists is a write that would replace a conversation that exists
	// and was not asked to.
	ErrExists = errors.New("already exists")
	// ErrConflict is a write planned on a state another writer has changed since.
	ErrConflict = errors.New("conversation changed meanwhile")
	// ErrCursorMoved is returned by Commit when a sink's cursor is no longer
	// where the export found it: another export to the same sink ran
	// meanwhile, or the conversation was cleared. Moving it anyway would
	// send records twice or skip some, so nothing moves and the next export
	// resends.
	ErrCursorMoved = errors.New("export cursor moved by another export or a clear; nothing was committed, the next export resends")
	// ErrNoStore is a store that was never made (a SQLite file that is not
	// there, a PostgreSQL database without convo's tables), opened by a
	// command that does not create one. It is a not-found.
	ErrNoStore = fmt.Errorf("no such store (nothing was ever stored there): %w", ErrNotFound)
	// ErrNotAStore is a location that holds something other than a convo
	// store (another program's database, a file that is not one): the
	// backend refuses it before changing anything in it.
	ErrNotAStore = errors.New("not a convo store")
	// ErrBadLocation is a store location the backend cannot read (a
	// malformed URL): nothing was opened.
	ErrBadLocation = errors.New("malformed store location")
	// ErrOutdated is a store whose schema an older convo made, opened by a
	// command that only reads and so may not upgrade it.
	ErrOutdated = errors.New("store made by an older convo")
	// ErrPlaceholder is a fork or rewind asked to cut the transcript right
	// after a placeholder: it would leave a user turn no one wrote, into
	// which the next user message would merge. A usage error.
	ErrPlaceholder = errors.New("is a placeholder convo put before the record after it: name the record before it or after it")
)

// Record references a command may use instead of an id: the names of
// transcript.Ref, which parses them; the store resolves them.
const (
	RefLast          = string(transcript.RefLast)          // the last record, whatever its role
	RefLastUser      = string(transcript.RefLastUser)      // the last user record that is not a placeholder
	RefLastAssistant = string(transcript.RefLastAssistant) // the last assistant record
)
