package sqlstore

// The search index as a strategy: the engine keeps and reads it through
// SearchIndex's verbs and never asks which kind it is. There are two, each
// configured by its backend with its own SQL: the terms in the record's
// row (indexrow.go: PostgreSQL's tsvector) and an index table of its own
// kept by a cursor (indextable.go: SQLite's FTS5). docs/search.md states
// the docid rules both keep.

import (
	"context"
	"time"

	"github.com/convo-cli/convo/pkg/search"
)

// IndexSQL is what every backend's index is written and read with: its
// entries' text and its query. The terms in either are pkg/search's.
type IndexSQL interface {
	// IndexText is a record's index entry: its terms as the index takes
	// them, with what else it narrows by (role, conversation).
	IndexText(terms []string, role, conv string) string
	// SearchQuery is the statement reading up to ?4 records matching x (and
	// conv and role, when set), with docid in [?3, ?2], newest first: columns
	// docid, conversation, id, pos, sub, seq, role, created, body. match is
	// bound at ?1, more at ?5 on. Unless bounded, the range holds every
	// docid and the statement may leave it out. sparse is what Sparse said
	// of the count SearchProbe's statement (match at ?1, more at ?2 on;
	// "": none) read: the statement may read the matches another way.
	SearchQuery(x search.Index, conv, role string, bounded, sparse bool) (query string, match any, more []any)
	SearchProbe(x search.Index, conv, role string) (query string, match any, more []any)
	Sparse(matches int64) bool
}

// SearchIndex is a store's search index: how each write keeps it, which
// docid a new record takes, and which docid ranges a search reads. A
// Dialect returns one (NewTermsInRow, NewIndexTable); only this package
// implements it.
type SearchIndex interface {
	IndexSQL

	// docIDColumn is the column ordering records newest first for search
	// (SQLite's rowid, PostgreSQL's docid); docIDValue the SQL value of a
	// new record's docid, its one placeholder bound to what docID gives.
	docIDColumn() string
	docIDValue() string
	// insertColumns and insertValues are the index's part of a record's
	// INSERT (", " first): the docid, and the terms where the row holds
	// them; its arguments are the docid, then termsArg's. termsSet is the
	// terms' part of an UPDATE's SET (", terms = ?" or ""), updateBody the
	// UPDATE of a stored record's body and seq (then termsArg's, then
	// conversation and id).
	insertColumns() string
	insertValues() string
	termsSet() string
	updateBody() string
	termsArg(args []any, terms string) []any
	// rowTerms is the entry a record's row holds: what terms makes, where
	// the row holds it; "" without calling terms otherwise.
	rowTerms(terms func() (string, error)) (string, error)

	// docID is what docIDValue's placeholder is bound to for a new record
	// created at ms, a the transaction's allocator; prime makes every read
	// it needs for the records matching where beforehand (a fork in SQL).
	docID(ctx context.Context, tx conn, a *docIDs, ms int64) (int64, error)
	prime(ctx context.Context, tx conn, a *docIDs, where string, args ...any) error

	// added: new records of the docids given were written (their entries
	// not yet: the index catches up later, or held them in the row).
	// forked: every record of conv is new (a fork in SQL).
	added(ctx context.Context, tx conn, docids ...int64) error
	forked(ctx context.Context, tx conn, conv string) error
	// add writes the entries given (a catch-up, a migration).
	add(ctx context.Context, tx conn, es []entry) error
	// unindex: the records matching where (args bound to its
	// placeholders) are about to change their text; remove: they are
	// about to be deleted or to take another docid.
	unindex(ctx context.Context, tx conn, where string, args ...any) error
	remove(ctx context.Context, tx conn, where string, args ...any) error
	// behind is what the index has not caught up with; catchUp brings it
	// up to date (see IndexSearch), each transaction waiting at most wait
	// for another writer when wait > 0.
	behind(ctx context.Context, tx conn) (IndexState, error)
	catchUp(ctx context.Context, s *Store, progress func(done, total int64), wait time.Duration) (int64, error)
	// merge merges the index's pieces into one where it holds more than
	// most, and returns how many it merged (0: none).
	merge(ctx context.Context, s *Store, most int) (int, error)

	// ranges are the docid ranges a search reads besides slots (the slot
	// docids of its bounds): each newest first, merged by creation time.
	ranges(ctx context.Context, tx conn, slots *searchRange) ([]*searchRange, error)
	// check compares the index with the records (CheckSearchIndex).
	check(ctx context.Context, s *Store) error
}

// ix is the store's search index.
func (s *Store) ix() SearchIndex { return s.d.SearchIndex() }

// ix is the search index of tx's store.
func (c conn) ix() SearchIndex { return c.d.SearchIndex() }
