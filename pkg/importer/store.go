package importer

import (
	"context"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Store is what an import needs of a store (every backend's store.Store
// has it): the cursors, the append that moves one with the records it
// covers, the records read back (ids, merges, the session's own meta), and
// what a deletion in the middle of an import leaves to remember.
type Store interface {
	// ImportCursors: every cursor, once, when the import starts.
	ImportCursors(ctx context.Context, source string, fn func(store.ImportCursor) error) error
	// ImportAppend: a chunk of records and its cursor, in one transaction.
	ImportAppend(ctx context.Context, cur store.ImportCursor, ids *transcript.IDs, recs transcript.Stream) (store.AppendResult, error)
	// Read: the tail of a conversation an import goes on (ids, merges),
	// and its first record, whose aux.import takes the session's meta.
	Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error
	// Annotate: the first record's aux.import, updated.
	Annotate(ctx context.Context, conv, ref string, an *transcript.Annotation) ([]byte, error)
	// Dump: the ids a conversation holds, when its source's active
	// branch moved.
	Dump(ctx context.Context, conv string, fn func(store.Dumped) error) error
	// RememberDeleted: what an import interrupted by a deletion had not
	// stored.
	RememberDeleted(ctx context.Context, conv string, ids []string) error
}
