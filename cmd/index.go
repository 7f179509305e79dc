package cmd

import (
	"context"
	"fmt"

	"github.com/convo-cli/convo/internal/memlimit"
	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// indexer is a store whose search index catches up after the writes
// (sqlstore.Store; on PostgreSQL it has nothing to do).
type indexer interface {
	IndexSearch(ctx context.Context, progress func(done, total int64)) (int64, error)
	MergeSearchIndex(ctx context.Context, most int) (int, error)
}

// indexMostSegments is how many segments convo index leaves the index in
// before it merges them into one: a search reads each (a 1M-record store's
// searches took 5–10 ms less in one than in the 46 a catch-up of it
// writes), and merging rewrites the whole index, so a nightly catch-up of
// a few records merges about once a week, not every night.
const indexMostSegments = 8

// newCmdIndex builds `convo index`: the search index brought up to date
// now, so that the next search has nothing to catch up with.
func newCmdIndex(f *Factory, runF func(context.Context, *Factory) error) *cobra.Command {
	return &cobra.Command{
		Use:   "index",
		Short: "Bring the search index up to date (the first search after writes does it too)",
		Long: `Bring the search index up to date with every record stored. Writes store
records only; the first search after them indexes what they wrote, which
after a large import can take a while. Run convo index after one (from a
cron job, say) and every search is instant. On SQLite it also merges the
index into one piece once the catch-ups have left it in more than 8 (each
search reads every piece). A progress bar shows at a terminal. A store
that is up to date is left as it is; on PostgreSQL, whose index is
written with each record, there is nothing to do.`,
		Example: `  convo import --from claude-code ~/.claude/projects && convo index
  convo index --db postgres://convo@db.internal/convo`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), f)
			}
			return indexRun(cmd.Context(), f)
		},
	}
}

func indexRun(ctx context.Context, f *Factory) error {
	s, err := f.ExistingStore(ctx)
	if err != nil {
		return notFoundIn(err, nil)
	}
	n, merged := int64(0), 0
	if ix, ok := s.(indexer); ok {
		progress, done := indexProgress(ctx, f)
		bulk := memlimit.Bulk()
		n, err = ix.IndexSearch(ctx, progress)
		done()
		if err == nil {
			merged, err = ix.MergeSearchIndex(ctx, indexMostSegments)
		}
		bulk()
		if err != nil {
			return fmt.Errorf("%s: %w", s.Describe(), err)
		}
	}
	if merged > 0 {
		f.warnf("%s: indexed %d records and merged the index's %d segments into one; the index is up to date", s.Describe(), n, merged)
		return nil
	}
	f.warnf("%s: indexed %d records; the index is up to date", s.Describe(), n)
	return nil
}

// indexBarFrom is how many records there must be to index before a
// progress bar shows: a search after a few writes shows none.
const indexBarFrom = 20000

// indexProgress is the progress callback of the index catching up: a bar
// on stderr at a terminal (not with -q), when there is much to do. Call
// done when the index is caught up.
func indexProgress(ctx context.Context, f *Factory) (progress func(done, total int64), done func()) {
	if !f.IO.StderrIsTerminal() || f.quiet {
		return nil, func() {}
	}
	var p *mpb.Progress
	var bar *mpb.Bar
	progress = func(n, total int64) {
		if bar == nil {
			if total < indexBarFrom || n >= total {
				return
			}
			p = mpb.NewWithContext(ctx, mpb.WithOutput(f.IO.ErrOut), mpb.WithWidth(40), mpb.WithAutoRefresh())
			bar = p.AddBar(total,
				mpb.PrependDecorators(decor.Name("indexing for search "), decor.CountersNoUnit("%d/%d")),
				mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)))
		}
		bar.SetTotal(total, false)
		bar.SetCurrent(n)
	}
	done = func() {
		if bar != nil {
			bar.SetTotal(-1, true)
			p.Wait()
			bar = nil
		}
	}
	return progress, done
}
