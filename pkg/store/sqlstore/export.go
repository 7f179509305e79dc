package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/convo-cli/convo/pkg/store"
)

// Export calls fn for each record of conv that opt selects, in transcript
// order, all read from one snapshot of the conversation, and returns the store.Mark
// to Commit when fn's output is safe. It moves no cursor itself. It returns
// ErrNotFound (wrapped) when conv does not exist.
func (s *Store) Export(ctx context.Context, conv string, opt store.ExportOptions, fn func(store.Row) error) (store.Mark, error) {
	m := store.Mark{Conversation: conv, Sink: opt.Sink}
	// A read-only snapshot does not block writers however long the output
	// takes, and keeps the cursor arithmetic consistent across statements.
	err := s.inSnapshot(ctx, func(tx conn) error { return s.export(ctx, tx, &m, opt, fn) })
	return m, err
}

func (s *Store) export(ctx context.Context, tx conn, m *store.Mark, opt store.ExportOptions, fn func(store.Row) error) error {
	conv := m.Conversation
	var next int64
	err := tx.QueryRowContext(ctx, `SELECT created, next_seq FROM conversations WHERE id = ?`, conv).Scan(&m.Created, &next)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("conversation %q: %w", conv, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("export %q: %w", conv, err)
	}
	if opt.Sink != "" {
		err = tx.QueryRowContext(ctx, `SELECT seq, held FROM export_cursors WHERE conversation = ? AND sink = ?`,
			conv, opt.Sink).Scan(&m.From.Seq, &m.From.Held)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read export cursor of %q: %w", conv, err)
		}
	}
	m.To.Seq = next - 1

	var last store.Place
	hasLast := false
	if opt.ExcludeLast {
		err = tx.QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? ORDER BY pos DESC, sub DESC LIMIT 1`,
			conv).Scan(&last.Pos, &last.Sub)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("find the last record of %q: %w", conv, err)
		}
		hasLast = err == nil
	}

	q := `SELECT pos, sub, seq, role, body FROM records WHERE conversation = ?1`
	args := []any{conv}
	if m.From != (store.Cursor{}) {
		q += ` AND (seq > ?2 OR seq = ?3)`
		args = append(args, m.From.Seq, m.From.Held)
	}
	rows, err := tx.QueryContext(ctx, q+` ORDER BY pos, sub`, args...)
	if err != nil {
		return fmt.Errorf("export %q: %w", conv, err)
	}
	defer rows.Close()
	var r store.Row
	var body sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&r.Pos, &r.Sub, &r.Seq, &r.Role, &body); err != nil {
			return fmt.Errorf("export %q: %w", conv, err)
		}
		if hasLast && r.Pos == last.Pos && r.Sub == last.Sub {
			m.To.Held = r.Seq
			continue
		}
		r.Body = body
		if err := fn(r); err != nil {
			return err
		}
		m.Records++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export %q: %w", conv, err)
	}
	s.log().Debug("read for export", "conversation", conv, "sink", opt.Sink, "records", m.Records,
		"from_seq", m.From.Seq, "to_seq", m.To.Seq, "held", m.To.Held)
	return nil
}

// Commit moves the cursors of marks, all in one transaction. It fails with
// ErrCursorMoved, moving none, when a cursor is no longer where its export
// found it. Marks of exports without a sink are ignored.
func (s *Store) Commit(ctx context.Context, marks ...store.Mark) error {
	marks = slices.DeleteFunc(slices.Clone(marks), func(m store.Mark) bool { return m.Sink == "" || m.To == m.From })
	if len(marks) == 0 {
		return nil // spare the write lock
	}
	return s.inTx(ctx, func(tx conn) error {
		now := s.nowMillis()
		for _, m := range marks {
			var created int64
			err := tx.QueryRowContext(ctx, `SELECT created FROM conversations WHERE id = ?`+tx.forUpdate(), m.Conversation).Scan(&created)
			if errors.Is(err, sql.ErrNoRows) || (err == nil && created != m.Created) {
				return fmt.Errorf("conversation %q, sink %q: %w", m.Conversation, m.Sink, store.ErrCursorMoved)
			}
			if err != nil {
				return fmt.Errorf("commit export of %q: %w", m.Conversation, err)
			}
			var cur store.Cursor
			err = tx.QueryRowContext(ctx, `SELECT seq, held FROM export_cursors WHERE conversation = ? AND sink = ?`,
				m.Conversation, m.Sink).Scan(&cur.Seq, &cur.Held)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("commit export of %q: %w", m.Conversation, err)
			}
			if cur != m.From {
				return fmt.Errorf("conversation %q, sink %q: %w", m.Conversation, m.Sink, store.ErrCursorMoved)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO export_cursors (conversation, sink, seq, held, updated)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation, sink)
				DO UPDATE SET seq = excluded.Seq, held = excluded.Held, updated = excluded.updated`,
				m.Conversation, m.Sink, m.To.Seq, m.To.Held, now); err != nil {
				return fmt.Errorf("commit export of %q: %w", m.Conversation, err)
			}
			s.log().Info("moved export cursor", "conversation", m.Conversation, "sink", m.Sink, "seq", m.To.Seq, "held", m.To.Held)
		}
		return nil
	})
}

// ExportConversations returns, ordered by id, the conversations an
// incremental export to sink may find something in: changed since the
// sink's cursor, or with a record held back. With sink "" it returns them all.
func (s *Store) ExportConversations(ctx context.Context, sink string) ([]string, error) {
	rows, err := s.conn().QueryContext(ctx, `SELECT c.id FROM conversations c
		LEFT JOIN export_cursors e ON e.conversation = c.id AND e.sink = ?1
		WHERE ?1 = '' OR e.Seq IS NULL OR c.next_seq - 1 > e.Seq OR e.Held > 0
		ORDER BY c.id`, sink)
	if err != nil {
		return nil, fmt.Errorf("list conversations to export: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list conversations to export: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// NextExport returns the place of the first record, in transcript order, an
// incremental export to sink would send (ok false when it would send
// nothing), for show's '-' marker. Unlike comparing with Cursor alone, it
// counts a record an --exclude-last export held back.
func (s *Store) NextExport(ctx context.Context, conv, sink string) (p store.Place, ok bool, err error) {
	var c store.Cursor
	err = s.conn().QueryRowContext(ctx, `SELECT seq, held FROM export_cursors WHERE conversation = ? AND sink = ?`,
		conv, sink).Scan(&c.Seq, &c.Held)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return p, false, fmt.Errorf("read export cursor: %w", err)
	}
	err = s.conn().QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? AND (seq > ? OR seq = ?)
		ORDER BY pos, sub LIMIT 1`, conv, c.Seq, c.Held).Scan(&p.Pos, &p.Sub)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("find next record to export: %w", err)
	}
	return p, true, nil
}
