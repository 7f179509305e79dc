package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/store"
)

// exportFileRecord returns what the store recorded of the log at path.
func exportFileRecord(t *testing.T, s store.Store, path string) (store.ExportFile, bool) {
	t.Helper()
	host, _ := os.Hostname()
	abs, _ := filepath.Abs(path)
	f, ok, err := s.ExportFile(context.Background(), host, abs)
	if err != nil {
		t.Fatal(err)
	}
	return f, ok
}

// An export records the file's length once it completed; one killed while
// writing leaves the record it made before its first byte (writing past
// the length then) and a torn line, which the next export cuts off before
// appending.
func TestExportFileAfterAKill(t *testing.T) {
	ctx := context.Background()
	f, _, errOut := testFactory(t, "")
	exportAppend(t, f, "demo", "hello", "hi there")
	s, _ := f.Store(ctx)
	log := filepath.Join(t.TempDir(), "log.jsonl")
	if err := runExport(t, f, "-c", "demo", "--incremental", "--to", "file://"+log); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(log)
	rec, ok := exportFileRecord(t, s, log)
	if !ok || rec.Writing || rec.Size != int64(len(before)) {
		t.Fatalf("after a complete export the store holds %+v (%v), want the file's length %d, not writing", rec, ok, len(before))
	}

	// The kill: the record made before the first write, then part of a line.
	rec.Writing = true
	if err := s.SetExportFile(ctx, rec); err != nil {
		t.Fatal(err)
	}
	f2, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f2.WriteString(`{"id":"01JR`)
	f2.Close()

	exportAppend(t, f, "demo", "more")
	if err := runExport(t, f, "-c", "demo", "--incremental", "--to", "file://"+log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "torn line (11 bytes) an interrupted export left; cut it off") {
		t.Errorf("stderr %q, want the cut told", errOut)
	}
	after, _ := os.ReadFile(log)
	rest, ok := strings.CutPrefix(string(after), string(before))
	if !ok || strings.Count(rest, "\n") != 1 || !strings.HasPrefix(rest, `{"id":"`) || !strings.Contains(rest, `"more"`) {
		t.Fatalf("after the cut the file gained %q, want the new record alone", rest)
	}
	if rec, _ := exportFileRecord(t, s, log); rec.Writing || rec.Size != int64(len(after)) {
		t.Errorf("after the export the store holds %+v, want length %d, not writing", rec, len(after))
	}
}

// A file convo did not leave torn is refused (exit 1) before anything is
// written or recorded: the file, the cursor and the store stay as they
// were. An export with nothing to write records nothing either.
func TestExportFileRefusedLeavesAllAlone(t *testing.T) {
	ctx := context.Background()
	f, _, _ := testFactory(t, "")
	exportAppend(t, f, "demo", "hello")
	s, _ := f.Store(ctx)
	dir := t.TempDir()
	foreign := filepath.Join(dir, "n.txt")
	if err := os.WriteFile(foreign, []byte("keep\nimportant"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runExport(t, f, "-c", "demo", "--incremental", "--to", "file://"+foreign)
	if !errors.Is(err, export.ErrForeignTail) || exitcode.Of(err) != exitcode.Failure || !strings.Contains(err.Error(), foreign) {
		t.Fatalf("export to a foreign torn file: %v (exit %d), want ErrForeignTail, exit 1, naming the file", err, exitcode.Of(err))
	}
	if got, _ := os.ReadFile(foreign); string(got) != "keep\nimportant" {
		t.Errorf("the file changed: %q", got)
	}
	if seq, _ := s.Cursor(ctx, "demo", DefaultSink); seq != 0 {
		t.Errorf("the cursor moved to %d", seq)
	}
	if rec, ok := exportFileRecord(t, s, foreign); ok {
		t.Errorf("the store recorded the refused file: %+v", rec)
	}

	// Nothing to send, or a conversation that is not there: no record.
	empty := filepath.Join(dir, "empty.jsonl")
	if err := runExport(t, f, "-c", "demo", "--incremental", "--to", "file://"+empty); err != nil {
		t.Fatal(err)
	}
	if err := runExport(t, f, "-c", "demo", "--incremental", "--to", "file://"+empty); err != nil {
		t.Fatal(err)
	}
	rec, _ := exportFileRecord(t, s, empty)
	if err := runExport(t, f, "-c", "nobody", "--to", "file://"+filepath.Join(dir, "none.jsonl")); exitcode.Of(err) != exitcode.NotFound {
		t.Fatalf("export of a missing conversation: %v", err)
	}
	if _, ok := exportFileRecord(t, s, filepath.Join(dir, "none.jsonl")); ok {
		t.Error("a failed export that wrote nothing recorded its file")
	}
	if again, _ := exportFileRecord(t, s, empty); again != rec {
		t.Errorf("an export with nothing to send changed the record: %+v, was %+v", again, rec)
	}
}
