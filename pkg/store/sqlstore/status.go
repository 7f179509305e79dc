package sqlstore

// Status: the summaries and export cursors of a conversation.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
)

// Status returns the summaries and export cursors of conv. It returns
// ErrNotFound (wrapped) when conv does not exist.
func (s *Store) Status(ctx context.Context, conv string) (store.Status, error) {
	var st store.Status
	err := s.inSnapshot(ctx, func(tx conn) error { return status(ctx, tx, conv, &st) })
	return st, err
}

func status(ctx context.Context, tx conn, conv string, st *store.Status) error {
	if err := mustExistTx(ctx, tx, conv); err != nil {
		return err
	}
	var sum store.Place
	err := tx.QueryRowContext(ctx, `SELECT id, pos, sub, created FROM records WHERE conversation = ? AND role = 'summary'
		AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1`, conv).Scan(&st.LatestSummary, &sum.Pos, &sum.Sub, &st.LatestSummaryCreated)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("find the latest summary of %q: %w", conv, err)
	}
	if st.LatestSummary == "" {
		sum = store.Place{Pos: -1}
	}
	// Without a summary every record is after it: the kept count answers,
	// where counting would walk the whole conversation.
	if err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM records WHERE conversation = ?1 AND role = 'summary' AND role IN ('system', 'summary')),
		CASE WHEN ?2 < 0 THEN (SELECT record_count FROM conversations WHERE id = ?1)
			ELSE (SELECT count(*) FROM records WHERE conversation = ?1 AND (pos, sub) > (?2, ?3)) END`,
		conv, sum.Pos, sum.Sub).Scan(&st.Summaries, &st.AfterSummary); err != nil {
		return fmt.Errorf("count records of %q: %w", conv, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT e.sink, e.seq, e.held, e.updated,
		(SELECT count(*) FROM records r WHERE r.conversation = e.conversation AND r.seq > e.seq) +
		(SELECT count(*) FROM records r WHERE r.conversation = e.conversation AND r.seq = e.held)
		FROM export_cursors e WHERE e.conversation = ? ORDER BY e.sink`, conv)
	if err != nil {
		return fmt.Errorf("read export cursors of %q: %w", conv, err)
	}
	defer rows.Close()
	for rows.Next() {
		var x store.SinkStatus
		var held int64
		if err := rows.Scan(&x.Sink, &x.Seq, &held, &x.Updated, &x.Pending); err != nil {
			return fmt.Errorf("read export cursors of %q: %w", conv, err)
		}
		x.Held = held > 0
		st.Exports = append(st.Exports, x)
	}
	return rows.Err()
}
