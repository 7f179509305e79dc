package store

// Status: the summaries and export cursors of a conversation.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SinkStatus is where one export sink stands on a conversation.
type SinkStatus struct {
	Sink    string
	Seq     int64 // the change sequence sent
	Held    bool  // an --exclude-last export held the last record back
	Pending int64 // records an incremental export would send now
	Updated int64 // ms since the epoch of the last export
}

// Status is what a cron job needs to know of a conversation.
type Status struct {
	Summaries            int64
	LatestSummary        string // "" when none
	LatestSummaryCreated int64
	// AfterSummary counts the records after the latest summary (every
	// record when there is none).
	AfterSummary int64
	Exports      []SinkStatus
}

// Status returns the summaries and export cursors of conv. It returns
// ErrNotFound (wrapped) when conv does not exist.
func (s *Store) Status(ctx context.Context, conv string) (Status, error) {
	var st Status
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return st, fmt.Errorf("status of %q: %w", conv, err)
	}
	defer tx.Rollback()
	if err := mustExistTx(ctx, tx, conv); err != nil {
		return st, err
	}
	var sum Place
	err = tx.QueryRowContext(ctx, `SELECT id, pos, sub, created FROM records WHERE conversation = ? AND role = 'summary'
		AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1`, conv).Scan(&st.LatestSummary, &sum.Pos, &sum.Sub, &st.LatestSummaryCreated)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("find the latest summary of %q: %w", conv, err)
	}
	if st.LatestSummary == "" {
		sum = Place{Pos: -1}
	}
	if err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM records WHERE conversation = ?1 AND role = 'summary' AND role IN ('system', 'summary')),
		(SELECT count(*) FROM records WHERE conversation = ?1 AND (pos, sub) > (?2, ?3))`,
		conv, sum.Pos, sum.Sub).Scan(&st.Summaries, &st.AfterSummary); err != nil {
		return st, fmt.Errorf("count records of %q: %w", conv, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT e.sink, e.seq, e.held, e.updated,
		(SELECT count(*) FROM records r WHERE r.conversation = e.conversation AND (r.seq > e.seq OR r.seq = e.held))
		FROM export_cursors e WHERE e.conversation = ? ORDER BY e.sink`, conv)
	if err != nil {
		return st, fmt.Errorf("read export cursors of %q: %w", conv, err)
	}
	defer rows.Close()
	for rows.Next() {
		var x SinkStatus
		var held int64
		if err := rows.Scan(&x.Sink, &x.Seq, &held, &x.Updated, &x.Pending); err != nil {
			return st, fmt.Errorf("read export cursors of %q: %w", conv, err)
		}
		x.Held = held > 0
		st.Exports = append(st.Exports, x)
	}
	return st, rows.Err()
}
