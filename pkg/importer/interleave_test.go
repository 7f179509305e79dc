package importer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// deletingStore runs del once after the first ImportAppend: a clear, a
// prune or a rewind coming between two chunks of one import.
type deletingStore struct {
	store.Store
	calls int
	del   func()
}

func (d *deletingStore) ImportAppend(ctx context.Context, cur store.ImportCursor, ids *transcript.IDs, recs transcript.Stream) (store.AppendResult, error) {
	res, err := d.Store.ImportAppend(ctx, cur, ids, recs)
	if d.calls++; d.calls == 1 && err == nil {
		d.del()
	}
	return res, err
}

// TestImportAndDeleteDoNotInterleave: a conversation cleared or rewound
// between two chunks of an import stops that file with an error saying
// so; the import counts only what it stored; afterwards nothing of the
// session comes back (it is remembered as deleted), and import --again
// brings it back whole.
func TestImportAndDeleteDoNotInterleave(t *testing.T) {
	conv := "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	path := growingCases["codex"]
	whole := openStore(t)
	if _, _, err := run(t, whole, "codex", Options{}, path); err != nil {
		t.Fatal(err)
	}
	want := ids(t, whole, conv)
	for _, c := range []struct {
		name string
		del  func(s store.Store)
	}{
		{"clear", func(s store.Store) {
			if _, err := s.Clear(context.Background(), conv); err != nil {
				t.Fatal(err)
			}
		}},
		{"rewind", func(s store.Store) {
			first := storedRecords(t, s, conv)[0].ID
			if _, err := s.Rewind(context.Background(), conv, first, store.RewindOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		s := openStore(t)
		ds := &deletingStore{Store: s}
		ds.del = func() { c.del(s) }
		im, _, err := run(t, ds, "codex", Options{Chunk: 2}, path)
		if !errors.Is(err, store.ErrInterleaved) || !strings.Contains(err.Error(), "import --again "+conv) {
			t.Fatalf("%s: err = %v, want the interleaving said", c.name, err)
		}
		if im.Tally.Inserted > 3 {
			t.Fatalf("%s: tally %+v: counts more than the first chunk stored", c.name, im.Tally)
		}
		before := idsOrNone(t, s, conv)
		again, _, err := run(t, s, "codex", Options{}, path)
		if err != nil || again.Tally.Inserted != 0 {
			t.Fatalf("%s: import again: %+v, %v; want nothing back", c.name, again.Tally, err)
		}
		if got := idsOrNone(t, s, conv); got != before {
			t.Fatalf("%s: the conversation changed on a later import", c.name)
		}
		if _, err := s.ImportAgain(context.Background(), conv); err != nil {
			t.Fatal(err)
		}
		if c.name == "rewind" {
			if _, err := s.Clear(context.Background(), conv); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ImportAgain(context.Background(), conv); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := run(t, s, "codex", Options{}, path); err != nil {
			t.Fatal(err)
		}
		if got := ids(t, s, conv); got != want {
			t.Fatalf("%s: after --again:\n%s\nwant\n%s", c.name, got, want)
		}
	}
}

// idsOrNone is ids, "" when conv is not there.
func idsOrNone(t *testing.T, s store.Store, conv string) string {
	t.Helper()
	if err := s.Read(context.Background(), conv, store.ReadOptions{Limit: 1}, func(store.Row) error { return nil }); errors.Is(err, store.ErrNotFound) {
		return ""
	}
	return ids(t, s, conv)
}

// TestStoredPerChunk: an import says what it stored chunk by chunk (an
// interrupt in the middle of a large file reports the chunks committed,
// not "nothing was written").
func TestStoredPerChunk(t *testing.T) {
	var got []int
	im, _, err := run(t, openStore(t), "codex", Options{Chunk: 2, Stored: func(n int) { got = append(got, n) }}, growingCases["codex"])
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range got {
		sum += n
	}
	if len(got) < 3 || sum != im.Tally.Inserted+im.Tally.Merged {
		t.Fatalf("Stored told %v (sum %d), want one call per chunk adding to %d", got, sum, im.Tally.Inserted+im.Tally.Merged)
	}
}
