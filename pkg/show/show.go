// Package show is convo show's use case: a stored conversation's records
// in transcript order, each with its markers (the first record sent to the
// LLM, the latest summary, the next record to export), laid out for people
// (Layout: wrapped, local times, a summary's covered range, colour) or one
// line per record (Plain), and what a terminal must not obey escaped
// (Escape). It reads the store through the interface it declares and
// knows no terminal: the caller gives the width and says whether to colour.
package show

import (
	"context"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Store is the part of a store show reads; store.Store is one.
type Store interface {
	// LatestSummary returns the place of conv's latest summary.
	LatestSummary(ctx context.Context, conv string) (store.Place, bool, error)
	// NextExport returns the place of the first record an incremental
	// export to sink would send.
	NextExport(ctx context.Context, conv, sink string) (store.Place, bool, error)
	// Read calls fn with each stored row of conv that opt selects.
	Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error
}

// Printer prints show's records in one layout: Layout or Plain.
type Printer interface {
	Heading(conv string) error
	// Record prints r at index idx; marks are its markers: '*' (first
	// record sent to the LLM), '^' (latest summary), '-' (next record to
	// export), or ' '.
	Record(idx int, marks [3]byte, r *transcript.Record) error
	Footer(records int, allExported bool) error
}

// Run prints conv's records through the printer newPrinter makes (told
// whether the conversation holds a summary), the next record to export
// being sink's.
func Run(ctx context.Context, s Store, conv, sink string, newPrinter func(hasSummary bool) Printer) error {
	summary, hasSummary, err := s.LatestSummary(ctx, conv)
	if err != nil {
		return err
	}
	next, hasNext, err := s.NextExport(ctx, conv, sink)
	if err != nil {
		return err
	}
	out := newPrinter(hasSummary)
	if err := out.Heading(conv); err != nil {
		return err
	}
	// The view starts at the latest summary: the filter is fed from there.
	inView := !hasSummary
	var view transcript.ViewFilter
	exportMarked := false
	idx := 0
	var r transcript.Record
	err = s.Read(ctx, conv, store.ReadOptions{}, func(row store.Row) error {
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return fmt.Errorf("record at index %d: %w", idx, err)
		}
		at := func(p store.Place) bool { return row.Pos == p.Pos && row.Sub == p.Sub }
		marks := [3]byte{' ', ' ', ' '}
		inView = inView || hasSummary && at(summary)
		if inView {
			switch view.Add(r.Message.Role) {
			case transcript.ViewSummary:
				marks[1] = '^'
			case transcript.ViewFirst:
				marks[0] = '*'
			}
		}
		if !exportMarked && hasNext && at(next) {
			marks[2] = '-'
			exportMarked = true
		}
		if err := out.Record(idx, marks, &r); err != nil {
			return err
		}
		idx++
		return nil
	})
	if err != nil {
		return err
	}
	return out.Footer(idx, !exportMarked)
}
