package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/convo-cli/convo/internal/pgtest"
	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// A database an older convo made (schema 6) is refused by a read-only open
// as outdated; the search migration's Go step indexes what it holds, so
// that search finds it, identifiers by their parts too.
func TestSearchMigrationIndexesStoredRecords(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Schema(t)
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ids := transcript.NewIDs()
	texts := []string{"Where is ORD-55821?", "It left the depot.", "Thanks, and ORD-55822?"}
	var recs []transcript.Record
	for i, text := range texts {
		recs = append(recs, transcript.Record{Message: transcript.Message{Role: []transcript.Role{"user", "assistant"}[i%2], Contents: []string{text}}})
	}
	if _, err := s.Append(ctx, "old", ids, transcript.Slice(recs...)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE import_deleted`, `ALTER TABLE conversations DROP COLUMN deletions`, `DROP INDEX records_terms`, `DROP INDEX records_docid_order`, `ALTER TABLE records DROP COLUMN terms`,
		`ALTER TABLE records DROP COLUMN docid`, `DROP SEQUENCE records_docid`, `ALTER TABLE import_cursors DROP COLUMN resume`,
		`ALTER TABLE conversations DROP COLUMN last_created`, `DELETE FROM convo_migrations WHERE version >= 7`} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	if _, err := OpenRead(ctx, dsn); !errors.Is(err, store.ErrOutdated) {
		t.Fatalf("read-only open of schema 6: %v, want ErrOutdated", err)
	}
	s, err = OpenExisting(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q, _ := search.Parse("ord")
	var got []string
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(h store.SearchHit) error {
		got = append(got, h.Doc.Text)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != texts[2] || got[1] != texts[0] {
		t.Fatalf("search after the migration: %q, want the two orders, newest first", got)
	}
}
