package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
)

// TestSearchLargeMatches: a range holds a few MiB of matching bodies at a
// time while it waits for the merge, and goes on from the last one read:
// 40 matches of 256 KiB, in both ranges (in order, and older ones in
// their slots), are all found, newest first.
func TestSearchLargeMatches(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "convo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := appender(t, s, func(created int64) string {
		return fmt.Sprintf("needle %d %s", created, strings.Repeat("hay ", 64<<10))
	})
	var inOrder, older []int64
	for i := range 20 {
		inOrder = append(inOrder, 1_000_000+int64(i)*1000)
		older = append(older, 500+int64(i)*100_000) // between and before them
	}
	add(inOrder...)
	add(older...)
	q, err := search.Parse("needle")
	if err != nil {
		t.Fatal(err)
	}
	last, hits := int64(1)<<62, 0
	if err := s.Search(ctx, store.SearchOptions{Query: q}, func(h store.SearchHit) error {
		if h.Created > last {
			return fmt.Errorf("created %d after %d: not newest first", h.Created, last)
		}
		last = h.Created
		hits++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if hits != 40 {
		t.Fatalf("%d hits, want 40", hits)
	}
}
