package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/store"
)

// openLog opens the file of --to file://PATH for an export reading s (nil:
// none), which records it (see export.RecordedFile).
func (o *exportOptions) openLog(ctx context.Context, s store.Store) (*export.RecordedFile, error) {
	var recorded func() (export.FileState, bool, error)
	var record func(context.Context, export.FileState) error
	if s != nil {
		// The key is where the file is: the host (a PostgreSQL store is
		// shared by machines with files of the same path) and the
		// absolute path.
		path, err := filepath.Abs(o.file)
		if err != nil {
			return nil, fmt.Errorf("--to file://%s: %w", o.file, err)
		}
		host, _ := os.Hostname()
		recorded, record = store.LogFile(ctx, s, host, path)
	}
	file, err := export.OpenFile(o.file, recorded)
	if err != nil {
		return nil, fmt.Errorf("--to file://%s: %w", o.file, err)
	}
	if file.Torn > 0 {
		o.f.warnf("%s ended in a torn line (%d bytes) an interrupted export left; cut it off", o.file, file.Torn)
	}
	return export.NewRecordedFile(ctx, file, record), nil
}
