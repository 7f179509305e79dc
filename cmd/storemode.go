package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/convo-cli/convo/pkg/store"
)

// summarizeStoreRun runs summarize opening the store no further than its
// flags need: a dry run only reads it (read-only, never created), and a run
// over stored conversations changes only what is stored (never creating a
// store). --all on a store that does not exist or holds no conversation
// ends at once with nothing to do (exit 0), with no progress bar waiting on
// zero conversations. It is summarize's run in root.go; summarizeRun stays
// the command's own.
func summarizeStoreRun(ctx context.Context, o *summarizeOptions) error {
	f := o.f
	if o.batchStatus {
		f.capStore(readStore)
		defer func() { f.storeCap = nil }()
		return summarizeBatchStatus(ctx, o)
	}
	if o.conversation == "" && !o.all && o.batchIn == "" {
		return summarizeRun(ctx, o) // a transform: no store
	}
	if o.dryRun {
		f.capStore(readStore)
	} else {
		f.capStore(changeStore)
	}
	defer func() { f.storeCap = nil }()
	if !o.all || o.batchIn != "" {
		return summarizeRun(ctx, o)
	}
	s, err := f.Store(ctx)
	empty := errors.Is(err, errNoStore)
	if err == nil {
		empty, err = store.Empty(ctx, s)
	}
	switch {
	case err != nil && !empty:
		return err
	case !empty:
		return summarizeRun(ctx, o)
	case o.batchOut != "":
		// No request to write: the file is there, empty, as a run over
		// conversations with nothing to cover leaves it.
		if o.batchOut != "-" {
			if err := os.WriteFile(o.batchOut, nil, 0o666); err != nil {
				return fmt.Errorf("--batch-out: %w", err)
			}
		}
		f.warnf("summarize --batch-out: no conversation stored: no request written")
		return nil
	}
	f.warnf("summarize --all: no conversation stored: nothing to summarize")
	return nil
}
