package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Names here start with export so they do not clash with other tests of
// the package.

func exportMsg(role transcript.Role, contents ...string) transcript.Record {
	return transcript.Record{Message: transcript.Message{Role: role, Contents: contents}}
}

func exportAppend(t testing.TB, s store.Store, ids *transcript.IDs, conv string, recs ...transcript.Record) {
	t.Helper()
	_, err := s.Append(context.Background(), conv, ids, transcript.Slice(recs...))
	if err != nil {
		t.Fatal(err)
	}
}

// exportInsertSummary stores a summary of covered right after anchorID,
// deleting the covered records when deleteCovered, and returns its id.
func exportInsertSummary(t testing.TB, s store.Store, ids *transcript.IDs, conv, anchorID string, covered []string, deleteCovered bool) string {
	t.Helper()
	now := time.Now().UnixMilli()
	sum := transcript.Record{ID: ids.New(now),
		Message:  transcript.Message{Role: transcript.RoleSummary, Contents: []string{"summary of " + strings.Join(covered, ",")}},
		Metadata: transcript.Metadata{SummaryIDs: covered, Timing: transcript.Timing{Creation: now}}}
	if err := insertSummary(s, context.Background(), conv, anchorID, &sum, deleteCovered); err != nil {
		t.Fatal(err)
	}
	return sum.ID
}

// exportStored returns the conversation as id -> canonical body, and its
// records' ids in transcript order.
func exportStored(t testing.TB, s store.Store, conv string) (map[string]string, []string) {
	t.Helper()
	all := map[string]string{}
	var order []string
	err := s.Read(context.Background(), conv, store.ReadOptions{}, func(r store.Row) error {
		id := exportID(r.Body)
		all[id] = string(r.Body)
		order = append(order, id)
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return all, order
}

// exportID takes the id out of a canonical body, which starts {"id":"...".
func exportID(body []byte) string {
	const prefix = `{"id":"`
	b := string(body[len(prefix):])
	return b[:strings.IndexByte(b, '"')]
}

// exportRun is one export as a consumer sees it: the rows, and the store.Mark.
func exportRun(t testing.TB, s store.Store, conv string, opt store.ExportOptions) ([]store.Row, store.Mark) {
	t.Helper()
	var rows []store.Row
	m, err := s.Export(context.Background(), conv, opt, func(r store.Row) error {
		r.Body = slices.Clone(r.Body)
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows, m
}

// TestExportReference replays the reference's example: incremental exports
// with exclude-last between the steps, a final one without it; the union
// upserted by id equals the store.
func (x suite) TestExportReference(t *testing.T) {
	s := x.open(t)
	ids := transcript.NewIDs()
	ctx := context.Background()
	replica := map[string]string{}
	exported := func(excludeLast bool) []string {
		rows, m := exportRun(t, s, "demo", store.ExportOptions{Sink: "default", ExcludeLast: excludeLast})
		if err := s.Commit(ctx, m); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			replica[exportID(r.Body)] = string(r.Body)
			out = append(out, r.Role+":"+exportID(r.Body))
		}
		return out
	}

	exportAppend(t, s, ids, "demo", exportMsg("assistant", "Hello!")) // a fake user record goes first
	exportAppend(t, s, ids, "demo", exportMsg("user", "Hi, there"))
	exportAppend(t, s, ids, "demo", exportMsg("user", "how are you")) // merged
	exportAppend(t, s, ids, "demo", exportMsg("assistant", "I am fine,", "and you?"))
	exportAppend(t, s, ids, "demo", exportMsg("user", "Good, ", "thank you!"))
	_, order := exportStored(t, s, "demo")
	if len(order) != 5 {
		t.Fatalf("want 5 records, got %d", len(order))
	}
	exportInsertSummary(t, s, ids, "demo", order[3], order[1:4], false)
	exportAppend(t, s, ids, "demo", exportMsg("assistant", "How can I help you?"))

	first := exported(true)
	if len(first) != 6 {
		t.Fatalf("first export: want the 6 records before the last, got %v", first)
	}
	stored, order := exportStored(t, s, "demo")
	last := order[len(order)-1]
	if _, ok := replica[last]; ok {
		t.Fatalf("exclude-last sent the last record %s", last)
	}

	exportAppend(t, s, ids, "demo", exportMsg("assistant", "Are you still there?")) // merged into the held record
	u := exportMsg("user", "Yes, but I do not need help!")
	u.Metadata.Aux = map[string]json.RawMessage{"stopped": json.RawMessage("true")}
	pt := int64(1744815823080)
	u.Metadata.Timing.PlayStart = &pt
	exportAppend(t, s, ids, "demo", u)

	second := exported(false)
	if len(second) != 2 || !strings.HasPrefix(second[0], "assistant:"+last) || !strings.HasPrefix(second[1], "user:") {
		t.Fatalf("second export: want the merged assistant record and the new user record, got %v", second)
	}
	stored, _ = exportStored(t, s, "demo")
	if !maps.Equal(replica, stored) {
		t.Fatalf("replica differs from the store:\nreplica %v\nstore   %v", replica, stored)
	}
	if again := exported(false); len(again) != 0 {
		t.Fatalf("a third export sent %v, want nothing", again)
	}
}

func (x suite) TestExportCommitConflict(t *testing.T) {
	s := x.open(t)
	ids := transcript.NewIDs()
	ctx := context.Background()
	exportAppend(t, s, ids, "x", exportMsg("user", "hi"), exportMsg("assistant", "hello"))
	_, m1 := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	_, m2 := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	if err := s.Commit(ctx, m1); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, m2); !errors.Is(err, store.ErrCursorMoved) {
		t.Fatalf("second commit of the same start: got %v, want ErrCursorMoved", err)
	}
	// A clear and a re-create between export and commit is caught too.
	exportAppend(t, s, ids, "x", exportMsg("user", "again"))
	_, m3 := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	if _, err := s.Clear(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	exportAppend(t, s, ids, "x", exportMsg("user", "new"))
	if err := s.Commit(ctx, m3); !errors.Is(err, store.ErrCursorMoved) {
		t.Fatalf("commit after a clear: got %v, want ErrCursorMoved", err)
	}
	if _, err := s.Export(ctx, "nope", store.ExportOptions{}, func(store.Row) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("export of a missing conversation: got %v", err)
	}
}

// TestExportNextExport checks show's marker follows a held record.
func (x suite) TestExportNextExport(t *testing.T) {
	s := x.open(t)
	ids := transcript.NewIDs()
	ctx := context.Background()
	exportAppend(t, s, ids, "x", exportMsg("user", "hi"), exportMsg("assistant", "hello"))
	_, m := exportRun(t, s, "x", store.ExportOptions{Sink: "default", ExcludeLast: true})
	if err := s.Commit(ctx, m); err != nil {
		t.Fatal(err)
	}
	p, ok, err := s.NextExport(ctx, "x", "default")
	if err != nil || !ok || p.Pos != 2 {
		t.Fatalf("next export: %v %v %v, want the held record at pos 2", p, ok, err)
	}
	_, m = exportRun(t, s, "x", store.ExportOptions{Sink: "default"})
	if err := s.Commit(ctx, m); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.NextExport(ctx, "x", "default"); ok || err != nil {
		t.Fatalf("next export after a full export: %v %v", ok, err)
	}
}

// TestExportSnapshot: what is written while an export streams is not in it
// and is not skipped by its cursor either; the next export sends it.
func (x suite) TestExportSnapshot(t *testing.T) {
	s := x.open(t)
	ids := transcript.NewIDs()
	ctx := context.Background()
	exportAppend(t, s, ids, "x", exportMsg("user", "hi"), exportMsg("assistant", "hello"))
	var first []string
	m, err := s.Export(ctx, "x", store.ExportOptions{Sink: "k"}, func(r store.Row) error {
		if len(first) == 0 {
			// Merge into the last record and add one, mid-stream.
			exportAppend(t, s, ids, "x", exportMsg("assistant", "again"), exportMsg("user", "new"))
		}
		first = append(first, string(r.Body))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 2 || strings.Contains(strings.Join(first, ""), "again") {
		t.Fatalf("the export saw writes made after it began: %v", first)
	}
	if err := s.Commit(ctx, m); err != nil {
		t.Fatal(err)
	}
	rows, _ := exportRun(t, s, "x", store.ExportOptions{Sink: "k"})
	if len(rows) != 2 || !strings.Contains(string(rows[0].Body), `"hello","again"`) || !strings.Contains(string(rows[1].Body), `"new"`) {
		t.Fatalf("the next export: %d rows, want the merged record and the new one", len(rows))
	}
}
