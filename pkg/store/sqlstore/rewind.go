package sqlstore

// Rewind: a conversation cut back to a record.

import (
	"context"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// returning how many records went.
func deleteConversation(ctx context.Context, tx conn, conv string) (int64, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, conv); err != nil {
		return 0, fmt.Errorf("delete conversation %q: %w", conv, err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE conversation = ?`, conv)
	if err != nil {
		return 0, fmt.Errorf("delete records of %q: %w", conv, err)
	}
	n, _ := res.RowsAffected()
	for _, t := range []string{"absorbed", "export_cursors"} {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE conversation = ?", conv); err != nil {
			return 0, fmt.Errorf("delete %s of %q: %w", t, conv, err)
		}
	}
	return n, nil
}

// Rewind removes the records of conv placed after the record to names, and
// any summary that covered one of them, in one transaction, handing each to
// opt.Removed first. It returns store.ErrNotFound (wrapped) when conv or to does
// not exist.
func (s *Store) Rewind(ctx context.Context, conv, to string, opt store.RewindOptions) (store.RewindResult, error) {
	var res store.RewindResult
	err := s.inTx(ctx, func(tx conn) error {
		if err := mustLockTx(ctx, tx, conv); err != nil {
			return err
		}
		st, err := resolve(ctx, tx, conv, to)
		if err != nil {
			return err
		}
		gone, err := rewindSet(ctx, tx, conv, store.Place{Pos: st.Pos, Sub: st.Sub})
		if err != nil {
			return err
		}
		ids := idList(gone)
		which := `conversation = ?1 AND ((pos, sub) > (?2, ?3) OR id IN ` + tx.d.IDsIn("?4") + `)`
		rows, err := tx.QueryContext(ctx, `SELECT pos, sub, seq, role, body FROM records WHERE `+which+` ORDER BY pos, sub`,
			conv, st.Pos, st.Sub, ids)
		if err != nil {
			return fmt.Errorf("read %q: %w", conv, err)
		}
		defer rows.Close()
		var r store.Row
		for rows.Next() {
			if err := rows.Scan(&r.Pos, &r.Sub, &r.Seq, &r.Role, &r.Body); err != nil {
				return fmt.Errorf("read %q: %w", conv, err)
			}
			res.Records++
			if r.Role == string(transcript.RoleSummary) {
				res.Summaries++
			}
			if opt.Removed != nil {
				if err := opt.Removed(r); err != nil {
					return err
				}
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read %q: %w", conv, err)
		}
		rows.Close()
		if opt.Written != nil {
			if err := opt.Written(); err != nil {
				return err
			}
		}
		if opt.DryRun {
			return errDryRun
		}
		if res.Records == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM records WHERE `+which, conv, st.Pos, st.Sub, ids); err != nil {
			return fmt.Errorf("delete records of %q: %w", conv, err)
		}
		// Merged-away ids that named a removed record may be appended again.
		if _, err := tx.ExecContext(ctx, `DELETE FROM absorbed WHERE conversation = ?1
			AND target IN `+tx.d.IDsIn("?2"), conv, ids); err != nil {
			return fmt.Errorf("delete absorbed ids of %q: %w", conv, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET updated = ?, record_count = record_count - ?, shape = shape + 1
			WHERE id = ?`, s.nowMillis(), res.Records, conv); err != nil {
			return fmt.Errorf("update conversation: %w", err)
		}
		s.log().Info("rewound conversation", "conversation", conv, "to", st.ID, "removed", res.Records, "summaries", res.Summaries)
		return nil
	})
	if errors.Is(err, errDryRun) {
		s.log().Info("rewind dry run", "conversation", conv, "to", to, "would_remove", res.Records)
		err = nil
	}
	return res, err
}

// rewindSet returns the ids of every record a rewind to cut removes: those
// after cut, and the summaries before it that cover one of them (a summary
// covering such a summary included).
func rewindSet(ctx context.Context, tx conn, conv string, cut store.Place) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM records WHERE conversation = ? AND (pos, sub) > (?, ?)`, conv, cut.Pos, cut.Sub)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", conv, err)
	}
	gone := map[string]bool{}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read %q: %w", conv, err)
		}
		gone[id] = true
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %q: %w", conv, err)
	}
	rows, err = tx.QueryContext(ctx, `SELECT id, body FROM records WHERE conversation = ? AND role = 'summary'
		AND role IN ('system', 'summary') AND (pos, sub) <= (?, ?) ORDER BY pos, sub`, conv, cut.Pos, cut.Sub)
	if err != nil {
		return nil, fmt.Errorf("read summaries of %q: %w", conv, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return nil, fmt.Errorf("read summaries of %q: %w", conv, err)
		}
		rec, err := parseStored(body)
		if err != nil {
			return nil, fmt.Errorf("summary %s: %w", id, err)
		}
		// In transcript order, so a summary covering a removed one is seen after it.
		if transcript.Covers(&rec, gone) {
			gone[id] = true
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}
