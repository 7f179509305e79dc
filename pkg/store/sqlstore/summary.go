package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// WriteSummary stores a summary as w says, in one transaction. With
// w.Check, a conversation changed by another writer since the plan was made
// (a newer summary, a covered record merged into) is store.ErrConflict and
// nothing is written.
func (s *Store) WriteSummary(ctx context.Context, conv string, sw store.SummaryWrite) error {
	sum, anchorID, deleteCovered := sw.Summary, sw.Anchor, sw.DeleteCovered
	if sum.Message.Role != transcript.RoleSummary {
		return fmt.Errorf("insert summary: record %s is a %s record", sum.ID, sum.Message.Role)
	}
	sum.Conversation = conv
	if err := transcript.Validate(sum); err != nil {
		return fmt.Errorf("insert summary: %w", err)
	}
	return s.inTx(ctx, func(tx conn) error {
		w, err := s.newWriter(ctx, tx, conv)
		if err != nil {
			return err
		}
		defer w.close()
		var pos int64
		err = tx.QueryRowContext(ctx, `SELECT pos FROM records WHERE conversation = ? AND id = ?`, conv, anchorID).Scan(&pos)
		if errors.Is(err, sql.ErrNoRows) && sw.Check {
			// Planned on a record another writer removed since: a conflict.
			return fmt.Errorf("%w: the summary's anchor %s was removed", store.ErrConflict, anchorID)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("summary anchor %s in conversation %q: %w", anchorID, conv, store.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read summary anchor: %w", err)
		}
		if sw.Check {
			if err := checkUnchanged(ctx, tx, conv, pos, sw); err != nil {
				return err
			}
		}
		var sub int64
		if err := tx.QueryRowContext(ctx, `SELECT max(sub) + 1 FROM records WHERE conversation = ? AND pos = ?`, conv, pos).Scan(&sub); err != nil {
			return fmt.Errorf("place summary: %w", err)
		}
		// A summary of a long span lists every covered id: its body is
		// tens of megabytes, so it is encoded once, into a buffer sized
		// for it (no doubling), and bound without a copy.
		w.buf = transcript.AppendJSON(slices.Grow(w.buf[:0], summaryBodySize(sum)), sum)
		if err := w.insertOne(ctx, "summary", conv, sum, pos, sub, unsafe.String(unsafe.SliceData(w.buf), len(w.buf))); err != nil {
			return err
		}
		w.seq++
		w.added++
		w.reshaped = true
		if ph := sw.Placeholder; ph != nil {
			ph.Conversation = conv
			if !ph.IsFake() || ph.Message.Role != transcript.RoleUser {
				return fmt.Errorf("insert summary: record %s is no placeholder", ph.ID)
			}
			w.buf = transcript.AppendJSON(w.buf[:0], ph)
			if err := w.insertOne(ctx, "placeholder", conv, ph, pos, sub+1, string(w.buf)); err != nil {
				return err
			}
			w.seq++
			w.added++
		}
		s.log().Info("stored summary", "conversation", conv, "id", sum.ID, "anchor", anchorID,
			"covers", len(sum.Metadata.SummaryIDs), "delete_covered", deleteCovered)
		if deleteCovered {
			if err := rememberDeleted(ctx, tx, s.nowMillis(), `conversation = ?1 AND id IN `+tx.d.IDsIn("?2"), conv, idList(sum.Metadata.SummaryIDs)); err != nil {
				return err
			}
			n, err := deleteRecords(ctx, tx, `conversation = ?1 AND id IN `+tx.d.IDsIn("?2"), conv, idList(sum.Metadata.SummaryIDs))
			if err != nil {
				return fmt.Errorf("delete summarized records: %w", err)
			}
			w.added -= n
		}
		if sw.BatchRequest != "" {
			if _, err := dropBatchRequests(ctx, tx, 0, []string{sw.BatchRequest}); err != nil {
				return err
			}
		}
		return w.finish(ctx)
	})
}

// insertOne inserts r of conv (what: a summary or a placeholder), body its
// encoding, at (pos, sub), with its docid and the writer's next seq, and
// tells the index.
func (w *writer) insertOne(ctx context.Context, what, conv string, r *transcript.Record, pos, sub int64, body string) error {
	tx, ix := w.tx, w.tx.ix()
	docid, err := w.docs.arg(ctx, tx, r.Metadata.Timing.Creation)
	if err != nil {
		return err
	}
	text, err := ix.rowTerms(func() (string, error) { return w.terms.of(tx.d, conv, r), nil })
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO records (conversation, id, pos, sub, role, created, seq, body`+ix.insertColumns()+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?`+ix.insertValues()+`)`,
		ix.termsArg([]any{conv, r.ID, pos, sub, string(r.Message.Role), r.Metadata.Timing.Creation, w.seq, body, docid}, text)...); err != nil {
		return fmt.Errorf("insert %s %s: %w", what, r.ID, err)
	}
	return ix.added(ctx, tx, docid)
}

// summaryBodySize is about the size of sum encoded: its ids quoted and
// separated, its text escaped at most twice over, its aux.
func summaryBodySize(sum *transcript.Record) int {
	n := 1024
	for _, id := range sum.Metadata.SummaryIDs {
		n += len(id) + 3
	}
	for _, c := range sum.Message.Contents {
		n += 2 * len(c)
	}
	for _, raw := range sum.Metadata.Aux {
		n += len(raw) + 32
	}
	return n
}

func checkUnchanged(ctx context.Context, tx conn, conv string, anchorPos int64, w store.SummaryWrite) error {
	var latest string
	err := tx.QueryRowContext(ctx, `SELECT id FROM records WHERE conversation = ? AND role = 'summary'
		AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1`, conv).Scan(&latest)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read latest summary: %w", err)
	}
	if latest != w.PreviousID {
		return fmt.Errorf("%w: a newer summary (%s) was stored", store.ErrConflict, latest)
	}
	// The covered records are walked in order beside the summary's ids
	// (both follow the transcript), from the first to the anchor: a
	// cursor, not one bound list, so a first summary of a long
	// conversation is checked in bounded memory and past any limit on
	// variables or on the size of a parameter.
	ids := w.Summary.Metadata.SummaryIDs
	if len(ids) == 0 {
		return nil
	}
	var fromPos, fromSub int64
	err = tx.QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? AND id = ?`, conv, ids[0]).
		Scan(&fromPos, &fromSub)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: covered record %s is gone", store.ErrConflict, ids[0])
	}
	if err != nil {
		return fmt.Errorf("read the first covered record: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, seq FROM records WHERE conversation = ?1
		AND (pos > ?2 OR (pos = ?2 AND sub >= ?3)) AND pos <= ?4 ORDER BY pos, sub`, conv, fromPos, fromSub, anchorPos)
	if err != nil {
		return fmt.Errorf("read covered records: %w", err)
	}
	defer rows.Close()
	j, changed := 0, false
	var id string
	var seq int64
	for j < len(ids) && rows.Next() {
		if err := rows.Scan(&id, &seq); err != nil {
			return fmt.Errorf("read covered records: %w", err)
		}
		if id != ids[j] {
			continue // kept, not covered (a system record)
		}
		changed = changed || seq > w.ReadSeq
		j++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read covered records: %w", err)
	}
	if j < len(ids) {
		return fmt.Errorf("%w: covered record %s is gone", store.ErrConflict, ids[j])
	}
	if changed {
		return fmt.Errorf("%w: a covered record changed", store.ErrConflict)
	}
	return nil
}
