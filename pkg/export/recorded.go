package export

import "context"

// RecordedFile is a File whose store records it: before the first byte
// goes in, that an export is writing past its length; once the export
// completed, where it left the file. A torn last line is then cut off only
// when an export of ours left it (see OpenFile). With no Record (no store:
// the stdin transform) nothing is recorded, and a torn file is refused.
type RecordedFile struct {
	*File
	record func(context.Context, FileState) error // nil: no store
	ctx    context.Context                        // the export's, for the record Write makes: io.Writer takes none
	wrote  bool
}

// NewRecordedFile is f, recorded by record (nil: not at all) within ctx.
func NewRecordedFile(ctx context.Context, f *File, record func(context.Context, FileState) error) *RecordedFile {
	return &RecordedFile{File: f, record: record, ctx: ctx}
}

// Write appends p, first recording that an export is writing past the
// file's length: killed now, it leaves a torn line the next export knows
// for its own. An export that writes nothing records nothing.
func (l *RecordedFile) Write(p []byte) (int, error) {
	if !l.wrote && l.record != nil {
		st, err := l.State()
		if err != nil {
			return 0, err
		}
		st.Writing = true
		if err := l.record(l.ctx, st); err != nil {
			return 0, err
		}
	}
	l.wrote = true
	return l.File.Write(p)
}

// Completed records where the export left the file, once it is on disk:
// a torn line past that is no longer ours to cut.
func (l *RecordedFile) Completed(ctx context.Context) error {
	if !l.wrote || l.record == nil {
		return nil
	}
	if err := l.Sync(); err != nil {
		return err
	}
	st, err := l.State()
	if err != nil {
		return err
	}
	return l.record(ctx, st)
}
