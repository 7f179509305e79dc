package store

import (
	"context"

	"github.com/convo-cli/convo/pkg/export"
)

// Exporter is the part of a Store an export reads and moves.
type Exporter interface {
	ExportConversations(ctx context.Context, sink string) ([]string, error)
	Export(ctx context.Context, conv string, opt ExportOptions, fn func(Row) error) (Mark, error)
	Commit(ctx context.Context, marks ...Mark) error
}

// ExportSource is s as export.Run reads it: records as their canonical
// JSON. With ack, Commit moves no cursor: it keeps the marks in *ack, for
// the --ack token (AckToken), and --commit-cursor moves them (Advance) once
// the consumer confirms.
func ExportSource(s Exporter, ack *[]Mark) export.Store[Mark] {
	if ack != nil {
		return ackSource{exportSource{s}, ack}
	}
	return exportSource{s}
}

type exportSource struct{ Exporter }

func (s exportSource) ExportRecords(ctx context.Context, conv, sink string, excludeLast bool, fn func([]byte) error) (Mark, error) {
	return s.Export(ctx, conv, ExportOptions{Sink: sink, ExcludeLast: excludeLast},
		func(r Row) error { return fn(r.Body) })
}

type ackSource struct {
	exportSource
	marks *[]Mark
}

func (s ackSource) Commit(_ context.Context, marks ...Mark) error {
	*s.marks = append(*s.marks, marks...)
	return nil
}

// ExportFiles is the part of a Store that records the log files exports
// append to.
type ExportFiles interface {
	ExportFile(ctx context.Context, host, path string) (f ExportFile, ok bool, err error)
	SetExportFile(ctx context.Context, f ExportFile) error
}

// LogFile is what s records of the log file at path on host, as
// export.OpenFile reads it (recorded) and export.NewRecordedFile writes it
// (record).
func LogFile(ctx context.Context, s ExportFiles, host, path string) (recorded func() (export.FileState, bool, error), record func(context.Context, export.FileState) error) {
	recorded = func() (export.FileState, bool, error) {
		f, ok, err := s.ExportFile(ctx, host, path)
		return export.FileState{Dev: f.Dev, Inode: f.Inode, Size: f.Size, Writing: f.Writing}, ok, err
	}
	record = func(ctx context.Context, st export.FileState) error {
		return s.SetExportFile(ctx, ExportFile{Host: host, Path: path,
			Dev: st.Dev, Inode: st.Inode, Size: st.Size, Writing: st.Writing})
	}
	return recorded, record
}
