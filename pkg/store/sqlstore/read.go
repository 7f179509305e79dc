package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/convo-cli/convo/pkg/store"
)

// Read calls fn for each record of conv matching opt, in transcript order,
// streaming from a cursor. It returns store.ErrNotFound (wrapped) when conv does
// not exist.
func (s *Store) Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error {
	// One snapshot: the summary found first is the one the records follow.
	return s.inSnapshot(ctx, func(tx conn) error { return s.read(ctx, tx, conv, opt, fn) })
}

func (s *Store) read(ctx context.Context, tx conn, conv string, opt store.ReadOptions, fn func(store.Row) error) error {
	if err := mustExistTx(ctx, tx, conv); err != nil {
		return err
	}
	where := []string{"conversation = ?1"}
	args := []any{conv}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("?%d", len(args))
	}
	if opt.BeforeID != "" {
		var pos, sub int64
		err := tx.QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? AND id = ?`, conv, opt.BeforeID).Scan(&pos, &sub)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("record %s in conversation %q: %w", opt.BeforeID, conv, store.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read record %s: %w", opt.BeforeID, err)
		}
		p, su := arg(pos), arg(sub)
		where = append(where, fmt.Sprintf("(pos < %s OR (pos = %s AND sub < %s))", p, p, su))
	}
	if opt.BeforeTime != 0 {
		where = append(where, "created < "+arg(opt.BeforeTime))
	}
	if opt.FromLatestSummary {
		pos, sub, ok, err := latest(ctx, tx, conv, "summary")
		if err != nil {
			return err
		}
		if ok {
			p, su := arg(pos), arg(sub)
			where = append(where, fmt.Sprintf("(pos > %s OR (pos = %s AND sub >= %s))", p, p, su))
		}
	}
	if opt.AfterSeq > 0 {
		where = append(where, "seq > "+arg(opt.AfterSeq))
	}
	if opt.UpToSeq > 0 {
		where = append(where, "seq <= "+arg(opt.UpToSeq))
	}
	q := "SELECT pos, sub, seq, role, body FROM records WHERE " + strings.Join(where, " AND ")
	if opt.Limit > 0 {
		q = "SELECT * FROM (" + q + " ORDER BY pos DESC, sub DESC LIMIT " + arg(opt.Limit) + ") AS newest"
	}
	q += " ORDER BY pos, sub"
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read %q: %w", conv, err)
	}
	defer rows.Close()
	var r store.Row
	var body sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&r.Pos, &r.Sub, &r.Seq, &r.Role, &body); err != nil {
			return fmt.Errorf("read %q: %w", conv, err)
		}
		r.Body = body
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %q: %w", conv, err)
	}
	s.log().Debug("read records", "conversation", conv, "limit", opt.Limit, "from_latest_summary", opt.FromLatestSummary,
		"after_seq", opt.AfterSeq, "up_to_seq", opt.UpToSeq)
	return nil
}

// latest returns the position of the latest record of a role (system or
// summary, the ones the partial index holds).
func latest(ctx context.Context, q conn, conv, role string) (pos, sub int64, ok bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? AND role = ?
		AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1`, conv, role).Scan(&pos, &sub)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("find latest %s: %w", role, err)
	}
	return pos, sub, true, nil
}

// LatestSummary returns the place of the conversation's latest summary.
func (s *Store) LatestSummary(ctx context.Context, conv string) (store.Place, bool, error) {
	if err := mustExistTx(ctx, s.conn(), conv); err != nil {
		return store.Place{}, false, err
	}
	pos, sub, ok, err := latest(ctx, s.conn(), conv, "summary")
	return store.Place{Pos: pos, Sub: sub}, ok, err
}

// LatestSystem returns the body of the conversation's latest system record,
// or nil when it has none.
func (s *Store) LatestSystem(ctx context.Context, conv string) ([]byte, error) {
	var body []byte
	err := s.conn().QueryRowContext(ctx, `SELECT body FROM records WHERE conversation = ? AND role = 'system'
		AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1`, conv).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read system prompt: %w", err)
	}
	return body, nil
}

// Conversations calls fn for every conversation, ordered by id.
func (s *Store) Conversations(ctx context.Context, fn func(store.ConversationInfo) error) error {
	rows, err := s.conn().QueryContext(ctx, `SELECT id, created, updated, record_count FROM conversations ORDER BY id`)
	if err != nil {
		return fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c store.ConversationInfo
		if err := rows.Scan(&c.ID, &c.Created, &c.Updated, &c.Records); err != nil {
			return fmt.Errorf("list conversations: %w", err)
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ConversationIDs returns up to limit conversation ids starting with prefix,
// for shell completion.
func (s *Store) ConversationIDs(ctx context.Context, prefix string, limit int) ([]string, error) {
	rows, err := s.conn().QueryContext(ctx, `SELECT id FROM conversations WHERE id >= ? ORDER BY id LIMIT ?`, prefix, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if !strings.HasPrefix(id, prefix) {
			break
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Clear deletes a conversation and everything stored for it, returning how
// many records went.
func (s *Store) Clear(ctx context.Context, conv string) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, conv)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return fmt.Errorf("conversation %q: %w", conv, store.ErrNotFound)
		}
		if err := rememberDeleted(ctx, tx, s.nowMillis(), `conversation = ?`, conv); err != nil {
			return err
		}
		n, err = deleteRecords(ctx, tx, `conversation = ?`, conv)
		if err != nil {
			return err
		}
		s.log().Info("cleared conversation", "conversation", conv, "records", n)
		for _, t := range []string{"absorbed", "export_cursors", "import_cursors"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE conversation = ?", conv); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// Cursor returns the change sequence already exported to sink (0: nothing).
func (s *Store) Cursor(ctx context.Context, conv, sink string) (int64, error) {
	var seq int64
	err := s.conn().QueryRowContext(ctx, `SELECT seq FROM export_cursors WHERE conversation = ? AND sink = ?`, conv, sink).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read export cursor: %w", err)
	}
	return seq, nil
}
