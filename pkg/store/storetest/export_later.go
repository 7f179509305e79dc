package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// exportCursorOf returns sink's cursor of conv: where an export starts.
func exportCursorOf(t testing.TB, s store.Store, conv, sink string) store.Cursor {
	t.Helper()
	_, m := exportRun(t, s, conv, store.ExportOptions{Sink: sink})
	return m.From
}

func exportAdvance(t testing.TB, s store.Store, want int, marks ...store.Mark) {
	t.Helper()
	n, err := s.Advance(context.Background(), marks...)
	if err != nil || n != want {
		t.Fatalf("advance: moved %d, %v; want %d moved", n, err, want)
	}
}

// TestExportAdvance: cursors an --ack export left are moved by the
// consumer's confirmation, only forward: twice is once, an older mark
// after a newer one is nothing, and the next export sends only what came
// after.
func (x suite) TestExportAdvance(t *testing.T) {
	s := x.open(t)
	ids := transcript.NewIDs()
	exportAppend(t, s, ids, "x", exportMsg("user", "hi"), exportMsg("assistant", "hello"))
	_, m1 := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	exportAppend(t, s, ids, "x", exportMsg("user", "more"))
	_, m2 := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	if m1.From != (store.Cursor{}) || m2.From != m1.From {
		t.Fatalf("uncommitted exports moved the cursor: %+v %+v", m1.From, m2.From)
	}

	exportAdvance(t, s, 1, m2)
	exportAdvance(t, s, 0, m2) // again: nothing
	exportAdvance(t, s, 0, m1) // stale: behind the cursor
	if got := exportCursorOf(t, s, "x", "k"); got != m2.To {
		t.Fatalf("cursor %+v, want %+v", got, m2.To)
	}
	if rows, _ := exportRun(t, s, "x", store.ExportOptions{Sink: "k"}); len(rows) != 0 {
		t.Fatalf("after the commit an export sent %d records, want none", len(rows))
	}

	// In order, each moves it; a held record stays held until sent.
	exportAppend(t, s, ids, "x", exportMsg("assistant", "a"), exportMsg("user", "b"))
	_, h := exportRun(t, s, "x", store.ExportOptions{Sink: "k", ExcludeLast: true})
	exportAdvance(t, s, 1, h)
	rows, all := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	if len(rows) != 1 || all.From != h.To {
		t.Fatalf("after the held commit: %d rows from %+v, want the held record from %+v", len(rows), all.From, h.To)
	}
	exportAdvance(t, s, 0, h)
	exportAdvance(t, s, 1, all)
	exportAdvance(t, s, 0, h) // the held mark is behind the full one now

	// Another sink is its own cursor; a mark without a sink moves nothing.
	_, other := exportRun(t, s, "x", store.ExportOptions{Sink: "other"})
	exportAdvance(t, s, 1, other, store.Mark{Conversation: "x", To: other.To})
	if got := exportCursorOf(t, s, "x", "k"); got != all.To {
		t.Fatalf("sink k moved with sink other: %+v, want %+v", got, all.To)
	}
}

// TestExportAdvanceSafe: a mark of a conversation cleared since moves
// nothing, and a cursor behind where the export started (replaced by a
// load) is ErrCursorMoved with nothing moved, not a jump over records the
// export never sent.
func (x suite) TestExportAdvanceSafe(t *testing.T) {
	s := x.open(t)
	ids := transcript.NewIDs()
	ctx := context.Background()
	// A clock that moves, so the re-created conversation is a new one
	// (its creation time tells it apart).
	now := time.Now()
	setNow(t, s, func() time.Time { now = now.Add(time.Second); return now })
	exportAppend(t, s, ids, "gone", exportMsg("user", "hi"))
	_, gone := exportRun(t, s, "gone", store.ExportOptions{Sink: "k"})
	if _, err := s.Clear(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	exportAppend(t, s, ids, "gone", exportMsg("user", "new"))
	exportAdvance(t, s, 0, gone)
	if got := exportCursorOf(t, s, "gone", "k"); got != (store.Cursor{}) {
		t.Fatalf("a mark of the cleared conversation moved the new one's cursor to %+v", got)
	}

	exportAppend(t, s, ids, "x", exportMsg("user", "hi"), exportMsg("assistant", "hello"))
	before := dumpPieces(t, s, "x") // no cursor yet
	_, m := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	exportAdvance(t, s, 1, m)
	exportAppend(t, s, ids, "x", exportMsg("user", "more"))
	_, later := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	exportAppend(t, s, ids, "y", exportMsg("user", "y"))
	_, y := exportRun(t, s, "y", store.ExportOptions{Sink: "k"})
	if err := s.Load(ctx, true, dumpFeed(before)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Advance(ctx, y, later); !errors.Is(err, store.ErrCursorMoved) || n != 0 {
		t.Fatalf("advance past a cursor moved back: moved %d, %v; want ErrCursorMoved", n, err)
	}
	if got := exportCursorOf(t, s, "y", "k"); got != (store.Cursor{}) {
		t.Fatalf("a failed advance moved another conversation's cursor to %+v", got)
	}
}

// TestExportFileRecord: what the store keeps of an export's log file, per
// host and path, device and inode numbers with all their bits.
func (x suite) TestExportFileRecord(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	if _, ok, err := s.ExportFile(ctx, "h", "/log"); ok || err != nil {
		t.Fatalf("a file never recorded: ok %v, %v", ok, err)
	}
	want := store.ExportFile{Host: "h", Path: "/log", Dev: 1<<63 + 5, Inode: 1<<64 - 1, Size: 1234, Writing: true}
	if err := s.SetExportFile(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.ExportFile(ctx, "h", "/log")
	got.Updated = 0
	if !ok || err != nil || got != want {
		t.Fatalf("read back %+v, %v, %v; want %+v", got, ok, err, want)
	}
	if _, ok, _ := s.ExportFile(ctx, "other", "/log"); ok {
		t.Fatal("another host's file of the same path is the same record")
	}
	want.Size, want.Writing, want.Inode = 99, false, 7
	if err := s.SetExportFile(ctx, want); err != nil {
		t.Fatal(err)
	}
	if got, _, _ = s.ExportFile(ctx, "h", "/log"); got.Updated == 0 {
		t.Fatal("no update time")
	}
	if got.Updated = 0; got != want {
		t.Fatalf("after a second record: %+v, want %+v", got, want)
	}
}
