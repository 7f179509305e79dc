package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/transcript"
)

// InsertSummary places a summary record right after the record anchorID (rule
// 5), in one transaction. With deleteCovered, the records the summary lists in
// summaryIds are deleted in that same transaction (rule 6).
func (s *Store) InsertSummary(ctx context.Context, conv, anchorID string, sum *transcript.Record, deleteCovered bool) error {
	if sum.Message.Role != transcript.RoleSummary {
		return fmt.Errorf("insert summary: record %s is a %s record", sum.ID, sum.Message.Role)
	}
	sum.Conversation = conv
	if err := transcript.Validate(sum); err != nil {
		return fmt.Errorf("insert summary: %w", err)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		w, err := s.newWriter(ctx, tx, conv)
		if err != nil {
			return err
		}
		defer w.close()
		var pos int64
		err = tx.QueryRowContext(ctx, `SELECT pos FROM records WHERE conversation = ? AND id = ?`, conv, anchorID).Scan(&pos)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("summary anchor %s in conversation %q: %w", anchorID, conv, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read summary anchor: %w", err)
		}
		var sub int64
		if err := tx.QueryRowContext(ctx, `SELECT max(sub) + 1 FROM records WHERE conversation = ? AND pos = ?`, conv, pos).Scan(&sub); err != nil {
			return fmt.Errorf("place summary: %w", err)
		}
		w.buf = transcript.AppendJSON(w.buf[:0], sum)
		if _, err := tx.ExecContext(ctx, `INSERT INTO records (conversation, id, pos, sub, role, created, seq, body) VALUES (?, ?, ?, ?, 'summary', ?, ?, ?)`,
			conv, sum.ID, pos, sub, sum.Metadata.Timing.Creation, w.seq, string(w.buf)); err != nil {
			return fmt.Errorf("insert summary %s: %w", sum.ID, err)
		}
		w.seq++
		if deleteCovered {
			for _, id := range sum.Metadata.SummaryIDs {
				if _, err := tx.ExecContext(ctx, `DELETE FROM records WHERE conversation = ? AND id = ?`, conv, id); err != nil {
					return fmt.Errorf("delete summarized record %s: %w", id, err)
				}
			}
		}
		return w.finish(ctx)
	})
}
