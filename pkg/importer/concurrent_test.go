package importer

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/store/sqlite"
)

// TestTwoImportsAtOnce: two processes importing the same files into one
// store at once store each entry once.
func TestTwoImportsAtOnce(t *testing.T) {
	dir := copyTree(t, filepath.Join("testdata", "claude-code"))
	want := openStore(t)
	if _, _, err := run(t, want, "claude-code", Options{}, dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "convo.db")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			s, err := sqlite.Open(context.Background(), path)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			// Small chunks: the two interleave.
			_, _, errs[i] = run(t, s, "claude-code", Options{Chunk: 2}, dir)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, w := noTitle(dumpAll(t, s, dir)), noTitle(dumpAll(t, want, dir)); got != w {
		t.Fatalf("two imports at once stored:\n%s", golden.FirstDiff(w, got))
	}
}
