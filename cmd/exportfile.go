package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/store"
)

// logFile is the file of --to file://PATH, with what the store records of
// it: before the first byte goes in, that an export is writing past its
// length; once the export completed, where it left the file. A torn last
// line is then cut off only when an export of ours left it (see
// export.OpenFile). Without a store (the stdin transform) nothing is
// recorded, and a torn file is refused.
type logFile struct {
	*export.File
	record func(context.Context, export.FileState) error // nil: no store
	ctx    context.Context                               // the export's, for the record Write makes: io.Writer takes none
	wrote  bool
}

// openLog opens the file of --to file://PATH for an export reading s (nil:
// none).
func (o *exportOptions) openLog(ctx context.Context, s store.Store) (*logFile, error) {
	l := &logFile{ctx: ctx}
	var recorded func() (export.FileState, bool, error)
	if s != nil {
		// The key is where the file is: the host (a PostgreSQL store is
		// shared by machines with files of the same path) and the
		// absolute path.
		path, err := filepath.Abs(o.file)
		if err != nil {
			return nil, fmt.Errorf("--to file://%s: %w", o.file, err)
		}
		host, _ := os.Hostname()
		recorded = func() (export.FileState, bool, error) {
			f, ok, err := s.ExportFile(ctx, host, path)
			return export.FileState{Dev: f.Dev, Inode: f.Inode, Size: f.Size, Writing: f.Writing}, ok, err
		}
		l.record = func(ctx context.Context, st export.FileState) error {
			return s.SetExportFile(ctx, store.ExportFile{Host: host, Path: path,
				Dev: st.Dev, Inode: st.Inode, Size: st.Size, Writing: st.Writing})
		}
	}
	file, err := export.OpenFile(o.file, recorded)
	if err != nil {
		return nil, fmt.Errorf("--to file://%s: %w", o.file, err)
	}
	if file.Torn > 0 {
		o.f.warnf("%s ended in a torn line (%d bytes) an interrupted export left; cut it off", o.file, file.Torn)
	}
	l.File = file
	return l, nil
}

// Write appends p, first recording that an export is writing past the
// file's length: killed now, it leaves a torn line the next export knows
// for its own. An export that writes nothing records nothing.
func (l *logFile) Write(p []byte) (int, error) {
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

// completed records where the export left the file, once it is on disk:
// a torn line past that is no longer ours to cut.
func (l *logFile) completed(ctx context.Context) error {
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
