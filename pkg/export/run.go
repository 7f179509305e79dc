package export

import (
	"context"
	"slices"
)

// Store is the part of a store an export reads and commits through. M is
// the store's mark: where a sink's cursor moves once the output is delivered.
type Store[M any] interface {
	// ExportConversations lists, by id, the conversations an export to sink
	// may find something in; sink "" lists every one.
	ExportConversations(ctx context.Context, sink string) ([]string, error)
	// ExportRecords calls fn with the canonical JSON of each record of conv
	// that sink and excludeLast select, in transcript order, from one
	// snapshot, and returns the mark to Commit once fn's output is delivered.
	// It moves no cursor. Sink "" selects every record.
	ExportRecords(ctx context.Context, conv, sink string, excludeLast bool, fn func(body []byte) error) (M, error)
	// Commit moves the cursors of marks, all or none.
	Commit(ctx context.Context, marks ...M) error
}

// Job says what Run exports.
type Job struct {
	// Conversation is the one conversation to export, unless All.
	Conversation string
	All          bool
	// Sink, when set, makes the export incremental: only what sink was not
	// sent yet (a record merged since goes again, whole, with its id), and
	// its cursor moves. Empty exports everything and moves no cursor.
	Sink string
	// ExcludeLast holds back the last record of each conversation, which may
	// still be merged; a later export sends it.
	ExcludeLast bool
	// Delivered, when set, is called after the output was closed and before
	// any cursor moves: it returns once the output is known delivered (a
	// pipe's reader took every byte, a file is on disk), or an error that
	// keeps the cursors where they were.
	Delivered func(context.Context) error
}

// Run writes the records j selects to out and closes it. Only then, and
// only if Close returned nil, does it move the sink's cursors: output that
// is not known delivered (a closed pipe, a full disk, items a server
// refused) moves nothing, so the next export sends it all again.
func Run[M any](ctx context.Context, s Store[M], out Writer, j Job) error {
	convs := []string{j.Conversation}
	if j.All {
		var err error
		if convs, err = s.ExportConversations(ctx, j.Sink); err != nil {
			return err
		}
	}
	staged, _ := out.(Staged)
	confirms := staged != nil && staged.Confirms() && j.Sink != ""
	marks := make([]M, 0, len(convs))
	if confirms {
		// marks holds the conversations delivered and not yet committed.
		staged.SetCommit(func() error {
			if len(marks) == 0 {
				return nil
			}
			err := s.Commit(ctx, marks...)
			marks = marks[:0]
			return err
		})
	}
	for _, c := range convs {
		m, err := s.ExportRecords(ctx, c, j.Sink, j.ExcludeLast, out.Write)
		if err != nil && j.All && gone(ctx, s, c) {
			continue // cleared since the listing
		}
		if err != nil {
			return err
		}
		if staged != nil {
			var done func()
			if confirms {
				done = func() { marks = append(marks, m) }
			}
			if err := staged.EndConversation(done); err != nil {
				return err
			}
			if confirms {
				continue // committed by the writer, part by part
			}
		}
		marks = append(marks, m)
	}
	if err := out.Close(); err != nil || j.Sink == "" || confirms {
		return err
	}
	if j.Delivered != nil {
		if err := j.Delivered(ctx); err != nil {
			return err
		}
	}
	return s.Commit(ctx, marks...)
}

// gone reports whether conv has left the store: a fresh listing no longer
// holds it. Asking the listing keeps Store free of a not-found error type.
func gone[M any](ctx context.Context, s Store[M], conv string) bool {
	all, err := s.ExportConversations(ctx, "")
	if err != nil {
		return false
	}
	return !slices.Contains(all, conv)
}
