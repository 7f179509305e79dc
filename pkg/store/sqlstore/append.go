package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Append adds the records of recs to the end of conversation conv,
// applying the rules of SPEC section 2, in one transaction: recs runs
// inside it, and if recs or a write fails, nothing is kept. A record whose
// id the conversation already holds (or absorbed in a merge) is skipped.
func (s *Store) Append(ctx context.Context, conv string, ids *transcript.IDs, recs transcript.Stream) (store.AppendResult, error) {
	return s.appendIf(ctx, conv, nil, ids, recs)
}

// AppendAfter is Append on the condition that last is still conv's last
// record; otherwise it is store.ErrConflict and nothing is written.
func (s *Store) AppendAfter(ctx context.Context, conv string, last store.Last, ids *transcript.IDs, recs transcript.Stream) (store.AppendResult, error) {
	return s.appendIf(ctx, conv, &last, ids, recs)
}

func (s *Store) appendIf(ctx context.Context, conv string, last *store.Last, ids *transcript.IDs, recs transcript.Stream) (store.AppendResult, error) {
	var res store.AppendResult
	// Once: recs may be the caller's input, which cannot be read twice.
	err := s.inTxOnce(ctx, func(tx conn) error { return s.appendTx(ctx, tx, conv, last, ids, recs, &res) })
	if errors.Is(err, errNothing) {
		s.log().Info("append wrote nothing", "conversation", conv, "skipped", res.Skipped)
		return store.AppendResult{Skipped: res.Skipped}, nil
	}
	if err != nil {
		return res, notStored(err)
	}
	s.log().Info("appended", "conversation", conv, "inserted", res.Inserted, "merged", res.Merged,
		"skipped", res.Skipped, "from_seq", res.FromSeq, "to_seq", res.ToSeq)
	return res, nil
}

// appendTx is the body of an append in tx; errNothing when every record was
// skipped (the caller rolls back or goes on).
func (s *Store) appendTx(ctx context.Context, tx conn, conv string, last *store.Last, ids *transcript.IDs,
	recs transcript.Stream, res *store.AppendResult) error {
	w, err := s.newWriter(ctx, tx, conv)
	if err != nil {
		return err
	}
	defer w.close()
	if err := w.startFigure(ctx); err != nil {
		return err
	}
	if last != nil {
		if err := checkLast(ctx, tx, conv, *last); err != nil {
			return err
		}
	}
	res.FromSeq = w.seq - 1
	open, err := w.openRecord(ctx)
	if err != nil {
		return err
	}
	a := appending{w: w, app: transcript.NewAppender(conv, open, ids, s.nowMillis), res: res, conv: conv,
		// Per-row statements run without the cancel: modernc.org/sqlite starts a
		// watcher goroutine per statement for a cancellable context. Each
		// record checks ctx itself, and a cancel still rolls the whole batch back.
		rowCtx: context.WithoutCancel(ctx)}
	if err := recs(func(rec *transcript.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return a.add(rec)
	}); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil { // as before the end of recs was read
		return err
	}
	if a.dirty != nil {
		if err := w.update(a.rowCtx, a.dirty); err != nil {
			return err
		}
	}
	if res.Inserted+res.Merged == 0 {
		return errNothing
	}
	res.ToSeq = w.seq - 1
	return w.finish(ctx)
}

// appending is one append's state between the records of its stream.
type appending struct {
	w      *writer
	app    *transcript.Appender
	res    *store.AppendResult
	conv   string
	rowCtx context.Context
	dirty  *transcript.Record // the open record, merged into and not yet written
}

// add writes what appending rec changes.
func (a *appending) add(rec *transcript.Record) error {
	if rec.ID != "" {
		known, err := a.w.known(a.rowCtx, rec.ID)
		if err != nil {
			return err
		}
		if known {
			a.res.Skipped++
			return nil
		}
	}
	// TryAppend refuses a merge past the record size limit: what
	// is stored must read back.
	changes, err := a.app.TryAppend(*rec)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		switch ch.Kind {
		case transcript.Merged:
			a.res.Merged++
			a.dirty = ch.Record
			if ch.Absorbed != "" {
				if err := a.w.exec(a.rowCtx, sqlAbsorb, a.conv, ch.Absorbed, ch.Record.ID); err != nil {
					return fmt.Errorf("record merge: %w", err)
				}
			}
		case transcript.Inserted:
			// The open record is final once another non-system record follows it.
			if a.dirty != nil && ch.Record.Message.Role != transcript.RoleSystem {
				if err := a.w.update(a.rowCtx, a.dirty); err != nil {
					return err
				}
				a.dirty = nil
			}
			a.res.Inserted++
			if err := a.w.insert(a.rowCtx, ch.Record); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkLast fails with store.ErrConflict unless conv's last record is last.
func checkLast(ctx context.Context, tx conn, conv string, last store.Last) error {
	var now store.Last
	err := tx.QueryRowContext(ctx, `SELECT id, seq FROM records WHERE conversation = ? ORDER BY pos DESC, sub DESC LIMIT 1`, conv).
		Scan(&now.ID, &now.Seq)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read the last record: %w", err)
	}
	if now != last {
		what := "a record was appended or merged into"
		if now.ID == "" {
			what = "the conversation was cleared or rewound"
		}
		return fmt.Errorf("%w: %s by another writer", store.ErrConflict, what)
	}
	return nil
}
