package storetest

// Tests of the import cursors (convo import): moved with the records they
// cover, never back, copied by Dump/Load, gone with clear and prune.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

func importCursors(t testing.TB, s store.Store, source string) []store.ImportCursor {
	t.Helper()
	var out []store.ImportCursor
	if err := s.ImportCursors(context.Background(), source, func(c store.ImportCursor) error {
		c.Updated = 0
		out = append(out, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func withID(r transcript.Record, id string) transcript.Record { r.ID = id; return r }

// TestImportCursorMovesWithRecords: the cursor is stored with the records,
// also when all were there already, never moved back, and a failed append
// keeps neither.
func (x suite) TestImportCursorMovesWithRecords(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	id1 := transcript.SourceID(time.UnixMilli(1000), "t", "s", "1")
	id2 := transcript.SourceID(time.UnixMilli(2000), "t", "s", "2")
	cur := store.ImportCursor{Source: "/a.jsonl", Conversation: "imp", Tool: "codex", Size: 10, MTime: 5, Entries: 1, LastEntry: "1", Head: "h",
		Resume: `{"offset":10}`}
	res, err := s.ImportAppend(ctx, cur, ids, transcript.Slice(withID(msg("user", "a"), id1)))
	if err != nil || res.Inserted != 1 {
		t.Fatalf("first import: %+v, %v", res, err)
	}
	if got := importCursors(t, s, "/a.jsonl"); len(got) != 1 || got[0] != cur {
		t.Fatalf("cursor = %+v, want %+v", got, cur)
	}
	// Again, grown by one entry: the first record is skipped by its id.
	cur2 := cur
	cur2.Size, cur2.Entries, cur2.LastEntry, cur2.Resume = 20, 2, "2", `{"offset":20}`
	res, err = s.ImportAppend(ctx, cur2, ids, transcript.Slice(withID(msg("user", "a"), id1), withID(msg("assistant", "b"), id2)))
	if err != nil || res.Inserted != 1 || res.Skipped != 1 {
		t.Fatalf("second import: %+v, %v", res, err)
	}
	// A slower import that read less moves nothing back.
	if _, err := s.ImportAppend(ctx, cur, ids, transcript.Slice(withID(msg("user", "a"), id1))); err != nil {
		t.Fatal(err)
	}
	if got := importCursors(t, s, ""); len(got) != 1 || got[0] != cur2 {
		t.Fatalf("cursor after a stale import = %+v, want %+v", got, cur2)
	}
	// A failing stream stores neither records nor cursor.
	boom := errors.New("boom")
	cur3 := cur2
	cur3.Entries = 3
	_, err = s.ImportAppend(ctx, cur3, ids, func(yield func(*transcript.Record) error) error {
		r := msg("user", "c")
		if err := yield(&r); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if got := importCursors(t, s, "/a.jsonl"); got[0].Entries != 2 {
		t.Fatalf("cursor moved by a failed import: %+v", got)
	}
	if recs := readAll(t, s, "imp", store.ReadOptions{}); len(recs) != 2 {
		t.Fatalf("records = %d, want 2", len(recs))
	}
	// A source with nothing new for a conversation never stored makes no
	// empty conversation, but its cursor is kept.
	empty := store.ImportCursor{Source: "/b.jsonl", Conversation: "none", Tool: "codex", Size: 1}
	if _, err := s.ImportAppend(ctx, empty, ids, transcript.Slice()); err != nil {
		t.Fatal(err)
	}
	var convs []string
	if err := s.Conversations(ctx, func(c store.ConversationInfo) error { convs = append(convs, c.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || convs[0] != "imp" {
		t.Fatalf("conversations = %v, want [imp]", convs)
	}
	if got := importCursors(t, s, "/b.jsonl"); len(got) != 1 {
		t.Fatalf("cursor of an empty source = %+v", got)
	}
}

// TestImportCursorCopyClearPrune: Dump/Load carries the cursors, Fork
// does not, Clear, a fork over a conversation and a deleting Prune remove
// them.
func (x suite) TestImportCursorCopyClearPrune(t *testing.T) {
	src, dst := x.open(t), x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	for _, conv := range []string{"c1", "c2"} {
		cur := store.ImportCursor{Source: "/x/" + conv, Conversation: conv, Tool: "claude-code", Size: 3, MTime: 4, Entries: 1, LastEntry: "e", Head: "h",
			Resume: `{"offset":3,"tail":"t"}`}
		if _, err := src.ImportAppend(ctx, cur, ids, transcript.Slice(msg("user", "hi"))); err != nil {
			t.Fatal(err)
		}
	}
	pieces := dumpPieces(t, src, "c1")
	n := 0
	for _, d := range pieces {
		if d.Import != nil {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("dump of c1 holds %d import cursors, want 1", n)
	}
	if err := dst.Load(ctx, false, dumpFeed(pieces)); err != nil {
		t.Fatal(err)
	}
	want := importCursors(t, src, "/x/c1")
	if got := importCursors(t, dst, ""); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("copied cursor = %+v, want %+v", got, want)
	}
	// A fork is no import: the source's cursor stays with c2 alone, and
	// a fork replacing a conversation takes that one's cursors away.
	if _, err := src.Fork(ctx, "c2", "c3", store.ForkOptions{}, ids); err != nil {
		t.Fatal(err)
	}
	for _, c := range importCursors(t, src, "") {
		if c.Conversation == "c3" {
			t.Fatalf("fork copied an import cursor: %+v", c)
		}
	}
	if _, err := src.Fork(ctx, "c2", "c1", store.ForkOptions{Force: true}, ids); err != nil {
		t.Fatal(err)
	}
	if got := importCursors(t, src, "/x/c1"); len(got) != 0 {
		t.Fatalf("cursor left by a fork --force over c1: %+v", got)
	}
	if _, err := src.Clear(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if got := importCursors(t, src, "/x/c1"); len(got) != 0 {
		t.Fatalf("cursor left by clear: %+v", got)
	}
	if _, err := src.Prune(ctx, store.PruneOptions{Glob: "c2"}); err != nil {
		t.Fatal(err)
	}
	if got := importCursors(t, src, ""); len(got) != 0 {
		t.Fatalf("cursor left by prune: %+v", got)
	}
}

// TestImportDeletedRemembered: the records of an imported conversation
// that rewind, clear or prune delete are remembered by id, and an import
// of the same records (from another source) leaves them out; a
// conversation never imported leaves nothing; copy carries the memory,
// fork does not; ImportAgain forgets it.
func (x suite) TestImportDeletedRemembered(t *testing.T) {
	s, dst := x.open(t), x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	recs := func(n int) []transcript.Record {
		var out []transcript.Record
		for i := range n {
			role := transcript.RoleUser
			if i%2 == 1 {
				role = transcript.RoleAssistant
			}
			r := msg(role, fmt.Sprintf("entry %d", i))
			r.ID = transcript.SourceID(time.UnixMilli(int64(1_700_000_000_000+i)), "claude-code", "s", fmt.Sprint(i))
			out = append(out, r)
		}
		return out
	}
	imp := func(st store.Store, conv, source string, rs []transcript.Record) store.AppendResult {
		t.Helper()
		cur := store.ImportCursor{Source: source, Conversation: conv, Tool: "claude-code", Size: 1, MTime: 1, Entries: int64(len(rs)), LastEntry: "e", Head: "h"}
		res, err := st.ImportAppend(ctx, cur, ids, transcript.Slice(rs...))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	all := recs(6)
	imp(s, "imp", "/a/s.jsonl", all[:4])
	if _, err := s.Rewind(ctx, "imp", all[1].ID, store.RewindOptions{}); err != nil {
		t.Fatal(err)
	}
	// The same entries from another path (or stdin): the rewound two stay out.
	if res := imp(s, "imp", "-", all[:5]); res.Inserted != 1 || res.Deleted != 2 {
		t.Fatalf("import after rewind: %+v, want 1 inserted (the new entry), 2 left out as deleted", res)
	}
	if got := len(readAll(t, s, "imp", store.ReadOptions{})); got != 3 {
		t.Fatalf("imp holds %d records, want 3", got)
	}
	// Copy carries the memory; fork does not.
	if err := dst.Load(ctx, false, dumpFeed(dumpPieces(t, s, "imp"))); err != nil {
		t.Fatal(err)
	}
	if res := imp(dst, "imp", "/b/s.jsonl", all[:5]); res.Deleted != 2 || res.Inserted != 0 {
		t.Fatalf("import into the copy: %+v, want the 2 deleted left out", res)
	}
	if _, err := s.Fork(ctx, "imp", "imp2", store.ForkOptions{}, ids); err != nil {
		t.Fatal(err)
	}
	for _, d := range dumpPieces(t, s, "imp2") {
		if d.Deleted != nil {
			t.Fatalf("fork copied a deleted record's memory: %+v", d.Deleted)
		}
	}
	// Clear: every record of the conversation is remembered.
	if _, err := s.Clear(ctx, "imp"); err != nil {
		t.Fatal(err)
	}
	if res := imp(s, "imp", "/c/s.jsonl", all[:6]); res.Inserted != 2 || res.Deleted != 5 {
		t.Fatalf("import after clear: %+v, want only the entry never stored (an answer, after a placeholder: 2), 5 left out", res)
	}
	// Prune --older-than deletes it again: remembered too.
	if _, err := s.Prune(ctx, store.PruneOptions{Glob: "imp"}); err != nil {
		t.Fatal(err)
	}
	if res := imp(s, "imp", "/d/s.jsonl", all[:6]); res.Inserted != 0 || res.Deleted != 6 {
		t.Fatalf("import after prune: %+v, want all 6 left out", res)
	}
	// ImportAgain forgets: the next import brings them back.
	if n, err := s.ImportAgain(ctx, "imp"); err != nil || n != 7 {
		t.Fatalf("ImportAgain = %d, %v; want 7 (6 and a placeholder)", n, err)
	}
	if res := imp(s, "imp", "/d/s.jsonl", all[:6]); res.Inserted != 6 || res.Deleted != 0 {
		t.Fatalf("import after ImportAgain: %+v, want all 6 back", res)
	}
	// A conversation never imported: a clear leaves nothing to remember.
	plain := recs(2)
	for i := range plain {
		plain[i].ID = transcript.SourceID(time.UnixMilli(1_700_000_100_000), "x", fmt.Sprint(i))
	}
	if _, err := s.Append(ctx, "plain", ids, transcript.Slice(plain...)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Clear(ctx, "plain"); err != nil {
		t.Fatal(err)
	}
	if res := imp(s, "plain", "/e/p.jsonl", plain); res.Inserted != 2 {
		t.Fatalf("import after clearing a conversation never imported: %+v, want both in", res)
	}
}

// TestImportInterleaved: an append continuing one import (After) is
// refused when the conversation was cleared or rewound since the one
// before (nothing stored, the conversation not made again, its records
// remembered as deleted); an annotation or another import's append
// between them is no deletion.
func (x suite) TestImportInterleaved(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	session := ""
	rec := func(i int) transcript.Record {
		role := transcript.RoleUser
		if i%2 == 1 {
			role = transcript.RoleAssistant
		}
		r := msg(role, fmt.Sprintf("entry %d", i))
		r.ID = transcript.SourceID(time.UnixMilli(int64(1_700_000_000_000+i)), "codex", session, fmt.Sprint(i))
		return r
	}
	cur := func(conv string, n int, after *store.ImportState) store.ImportCursor {
		return store.ImportCursor{Source: "/il/" + conv, Conversation: conv, Tool: "codex", Size: 1, MTime: -1, Entries: int64(n), LastEntry: "e", Head: "h", After: after}
	}
	for _, c := range []struct {
		name, what string
		between    func(conv string)
	}{
		{"clear", "cleared or pruned", func(conv string) {
			if _, err := s.Clear(ctx, conv); err != nil {
				t.Fatal(err)
			}
		}},
		{"rewind", "rewound", func(conv string) {
			if _, err := s.Rewind(ctx, conv, rec(0).ID, store.RewindOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"annotate", "", func(conv string) {
			if _, err := s.Annotate(ctx, conv, rec(1).ID, &transcript.Annotation{Aux: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}); err != nil {
				t.Fatal(err)
			}
		}},
		{"another import", "", func(conv string) {
			if _, err := s.ImportAppend(ctx, cur(conv, 3, nil), ids, transcript.Slice(rec(0), rec(1), rec(2))); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		conv := "il-" + c.name
		session = conv
		res, err := s.ImportAppend(ctx, cur(conv, 2, nil), ids, transcript.Slice(rec(0), rec(1)))
		if err != nil {
			t.Fatal(err)
		}
		c.between(conv)
		_, err = s.ImportAppend(ctx, cur(conv, 4, &res.State), ids, transcript.Slice(rec(2), rec(3)))
		if c.what == "" {
			if err != nil {
				t.Fatalf("%s between two chunks: %v, want no refusal", c.name, err)
			}
			continue
		}
		var ie *store.InterleavedError
		if !errors.Is(err, store.ErrInterleaved) || !errors.As(err, &ie) || !strings.Contains(ie.What, c.what) {
			t.Fatalf("%s between two chunks: err = %v, want ErrInterleaved saying %q", c.name, err, c.what)
		}
		// The refused records are remembered: the same records later stay out.
		again, err := s.ImportAppend(ctx, cur(conv, 4, nil), ids, transcript.Slice(rec(2), rec(3)))
		if err != nil || again.Inserted != 0 || again.Deleted != 2 {
			t.Fatalf("%s: the refused records imported later: %+v, %v; want both left out", c.name, again, err)
		}
	}
}
