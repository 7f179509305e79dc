package sqlstore

// Rewind: a conversation cut back to a record.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// returning how many records went.
func deleteConversation(ctx context.Context, tx conn, conv string) (int64, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, conv); err != nil {
		return 0, fmt.Errorf("delete conversation %q: %w", conv, err)
	}
	n, err := deleteRecords(ctx, tx, `conversation = ?`, conv)
	if err != nil {
		return 0, fmt.Errorf("delete records of %q: %w", conv, err)
	}
	for _, t := range []string{"absorbed", "export_cursors", "import_cursors"} {
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
		st, err := resolveCut(ctx, tx, conv, to)
		if err != nil {
			return err
		}
		sums, err := rewindSummaries(ctx, tx, conv, store.Place{Pos: st.Pos, Sub: st.Sub})
		if err != nil {
			return err
		}
		// What goes, in transcript order: those summaries come before the
		// cut, so before every record after it. Two range reads: one query
		// joining them with OR would walk the whole conversation.
		parts := []struct {
			where string
			args  []any
		}{
			{`conversation = ?1 AND id IN ` + tx.d.IDsIn("?2"), []any{conv, idList(sums)}},
			{`conversation = ?1 AND (pos, sub) > (?2, ?3)`, []any{conv, st.Pos, st.Sub}},
		}
		for _, p := range parts {
			if err := rewindRead(ctx, tx, p.where, p.args, &res, opt.Removed); err != nil {
				return fmt.Errorf("read %q: %w", conv, err)
			}
		}
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
		for _, p := range parts {
			if err := rememberDeleted(ctx, tx, s.nowMillis(), p.where, p.args...); err != nil {
				return err
			}
			if _, err := deleteRecords(ctx, tx, p.where, p.args...); err != nil {
				return fmt.Errorf("delete records of %q: %w", conv, err)
			}
		}
		// Merged-away ids that named a removed record may be appended again.
		if _, err := tx.ExecContext(ctx, `DELETE FROM absorbed WHERE conversation = ?1
			AND target NOT IN (SELECT id FROM records WHERE conversation = ?1)`, conv); err != nil {
			return fmt.Errorf("delete absorbed ids of %q: %w", conv, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET updated = ?, record_count = record_count - ?, shape = shape + 1
			WHERE id = ?`, s.nowMillis(), res.Records, conv); err != nil {
			return fmt.Errorf("update conversation: %w", err)
		}
		if err := s.keepFigures(ctx, tx, conv, 0, true); err != nil {
			return err
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

// rewindRead hands each record where selects to removed, counting them.
func rewindRead(ctx context.Context, tx conn, where string, args []any, res *store.RewindResult, removed func(store.Row) error) error {
	rows, err := tx.QueryContext(ctx, `SELECT pos, sub, seq, role, body FROM records WHERE `+where+` ORDER BY pos, sub`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var r store.Row
	var body sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&r.Pos, &r.Sub, &r.Seq, &r.Role, &body); err != nil {
			return err
		}
		r.Body = body
		res.Records++
		if r.Role == string(transcript.RoleSummary) {
			res.Summaries++
		}
		if removed != nil {
			if err := removed(r); err != nil {
				return err
			}
		}
	}
	return rows.Err()
}

// rewindSummaries returns the ids of the summaries at or before cut that a
// rewind to cut removes with the records after it: those covering one of
// them, or covering such a summary. Each summary is checked against the
// records after cut by itself, so memory stays with the largest summary,
// however many records go.
func rewindSummaries(ctx context.Context, tx conn, conv string, cut store.Place) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, body FROM records WHERE conversation = ? AND role = 'summary'
		AND role IN ('system', 'summary') AND (pos, sub) <= (?, ?) ORDER BY pos, sub`, conv, cut.Pos, cut.Sub)
	if err != nil {
		return nil, fmt.Errorf("read summaries of %q: %w", conv, err)
	}
	type summary struct {
		id      string
		covered []string
	}
	var sums []summary
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read summaries of %q: %w", conv, err)
		}
		rec, err := parseStored(body)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("summary %s: %w", id, err)
		}
		sums = append(sums, summary{id, rec.Metadata.SummaryIDs})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read summaries of %q: %w", conv, err)
	}
	gone := map[string]bool{}
	var ids []string
	for _, sum := range sums {
		// In transcript order, so a summary covering a removed one is seen after it.
		hit := slices.ContainsFunc(sum.covered, func(id string) bool { return gone[id] })
		if !hit {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE conversation = ?1
				AND (pos, sub) > (?2, ?3) AND id IN `+tx.d.IDsIn("?4"), conv, cut.Pos, cut.Sub, idList(sum.covered)).Scan(&n); err != nil {
				return nil, fmt.Errorf("read what summary %s covers: %w", sum.id, err)
			}
			hit = n > 0
		}
		if hit {
			gone[sum.id] = true
			ids = append(ids, sum.id)
		}
	}
	return ids, nil
}
