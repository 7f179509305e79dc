package store

import (
	"context"
	"slices"
	"testing"

	"github.com/convo-cli/convo/pkg/export"
)

// exporter records what an export asks of it.
type exporter struct {
	opt       ExportOptions
	committed []Mark
}

func (e *exporter) ExportConversations(context.Context, string) ([]string, error) {
	return []string{"c"}, nil
}

func (e *exporter) Export(_ context.Context, conv string, opt ExportOptions, fn func(Row) error) (Mark, error) {
	e.opt = opt
	return Mark{Conversation: conv, Sink: opt.Sink}, fn(Row{Body: []byte(`{"id":"1"}`)})
}

func (e *exporter) Commit(_ context.Context, marks ...Mark) error {
	e.committed = append(e.committed, marks...)
	return nil
}

// The records reach export as their JSON; Commit moves the cursors, or
// with ack keeps the marks for the token and moves none.
func TestExportSource(t *testing.T) {
	ctx := context.Background()
	for _, ack := range []bool{false, true} {
		e := &exporter{}
		var kept *[]Mark
		if ack {
			kept = new([]Mark)
		}
		src := ExportSource(e, kept)
		var bodies []string
		m, err := src.ExportRecords(ctx, "c", "s3", true, func(b []byte) error { bodies = append(bodies, string(b)); return nil })
		if err != nil || !slices.Equal(bodies, []string{`{"id":"1"}`}) || e.opt != (ExportOptions{Sink: "s3", ExcludeLast: true}) {
			t.Fatalf("ack %v: bodies %q, options %+v, %v", ack, bodies, e.opt, err)
		}
		if err := src.Commit(ctx, m); err != nil {
			t.Fatal(err)
		}
		switch {
		case !ack && (len(e.committed) != 1 || e.committed[0] != m):
			t.Errorf("no ack: committed %+v, want the mark", e.committed)
		case ack && (len(e.committed) != 0 || len(*kept) != 1 || (*kept)[0] != m):
			t.Errorf("ack: committed %+v, kept %+v; want the mark kept and nothing moved", e.committed, *kept)
		}
	}
}

// files keeps the export files recorded.
type files map[[2]string]ExportFile

func (f files) ExportFile(_ context.Context, host, path string) (ExportFile, bool, error) {
	x, ok := f[[2]string{host, path}]
	return x, ok, nil
}

func (f files) SetExportFile(_ context.Context, x ExportFile) error {
	f[[2]string{x.Host, x.Path}] = x
	return nil
}

// What a log file's state is recorded as, it is read back as, under its
// host and path.
func TestLogFile(t *testing.T) {
	ctx := context.Background()
	fs := files{}
	recorded, record := LogFile(ctx, fs, "h", "/var/log/convo.jsonl")
	if _, ok, err := recorded(); ok || err != nil {
		t.Fatalf("nothing recorded yet: ok %v, %v", ok, err)
	}
	st := export.FileState{Dev: 1, Inode: 2, Size: 3, Writing: true}
	if err := record(ctx, st); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := recorded(); !ok || err != nil || got != st {
		t.Fatalf("read back %+v, ok %v, %v; want %+v", got, ok, err, st)
	}
	other, _ := LogFile(ctx, fs, "other", "/var/log/convo.jsonl")
	if _, found, _ := other(); found {
		t.Fatal("another host's file of the same path is not this one")
	}
}
