package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Append adds the records next yields (until io.EOF) to the end of
// conversation conv, applying the rules of SPEC section 2, in one
// transaction: if next or a write fails, nothing is kept. A record whose id
// the conversation already holds (or absorbed in a merge) is skipped.
func (s *Store) Append(ctx context.Context, conv string, ids *transcript.IDs, next func() (transcript.Record, error)) (store.AppendResult, error) {
	return s.appendIf(ctx, conv, nil, ids, next)
}

// AppendAfter is Append on the condition that last is still conv's last
// record; otherwise it is store.ErrConflict and nothing is written.
func (s *Store) AppendAfter(ctx context.Context, conv string, last store.Last, ids *transcript.IDs, next func() (transcript.Record, error)) (store.AppendResult, error) {
	return s.appendIf(ctx, conv, &last, ids, next)
}

func (s *Store) appendIf(ctx context.Context, conv string, last *store.Last, ids *transcript.IDs, next func() (transcript.Record, error)) (store.AppendResult, error) {
	var res store.AppendResult
	// Once: next consumes the caller's stream, which cannot be read twice.
	err := s.inTxOnce(ctx, func(tx conn) error { return s.appendTx(ctx, tx, conv, last, ids, next, &res) })
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
	next func() (transcript.Record, error), res *store.AppendResult) error {
	{
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
		app := transcript.NewAppender(conv, open, ids, s.nowMillis)
		var dirty *transcript.Record // the open record, merged into and not yet written
		// Per-row statements run without the cancel: modernc.org/sqlite starts a
		// watcher goroutine per statement for a cancellable context. The loop
		// checks ctx itself, and a cancel still rolls the whole batch back.
		rowCtx := context.WithoutCancel(ctx)
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec, err := next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if rec.ID != "" {
				known, err := w.known(rowCtx, rec.ID)
				if err != nil {
					return err
				}
				if known {
					res.Skipped++
					continue
				}
			}
			// TryAppend refuses a merge past the record size limit: what
			// is stored must read back.
			changes, err := app.TryAppend(rec)
			if err != nil {
				return err
			}
			for _, ch := range changes {
				switch ch.Kind {
				case transcript.Merged:
					res.Merged++
					dirty = ch.Record
					if ch.Absorbed != "" {
						if err := w.exec(rowCtx, sqlAbsorb, conv, ch.Absorbed, ch.Record.ID); err != nil {
							return fmt.Errorf("record merge: %w", err)
						}
					}
				case transcript.Inserted:
					// The open record is final once another non-system record follows it.
					if dirty != nil && ch.Record.Message.Role != transcript.RoleSystem {
						if err := w.update(rowCtx, dirty); err != nil {
							return err
						}
						dirty = nil
					}
					res.Inserted++
					if err := w.insert(rowCtx, ch.Record); err != nil {
						return err
					}
				}
			}
		}
		if dirty != nil {
			if err := w.update(rowCtx, dirty); err != nil {
				return err
			}
		}
		if res.Inserted+res.Merged == 0 {
			return errNothing
		}
		res.ToSeq = w.seq - 1
		return w.finish(ctx)
	}
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
