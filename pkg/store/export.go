package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// ErrCursorMoved is returned by Commit when a sink's cursor is no longer where
// the export found it: another export to the same sink ran meanwhile, or the
// conversation was cleared. Moving it anyway would send records twice or
// skip some, so nothing moves and the next export resends.
var ErrCursorMoved = errors.New("export cursor moved by another export or a clear; nothing was committed, the next export resends")

// ExportOptions choose what Export reads of a conversation.
type ExportOptions struct {
	// Sink, when set, makes the export incremental: it reads only the records
	// whose current version the sink was not sent, and the returned Mark
	// moves the sink's cursor. Empty reads every record and moves nothing.
	Sink string
	// ExcludeLast holds back the conversation's last record in transcript
	// order, which may still be merged; a later export sends it.
	ExcludeLast bool
}

// cursor is what a sink was sent of one conversation: every record version
// with a change sequence up to seq, except the one whose sequence is held
// (0: none), which an --exclude-last export held back. A record changed
// since gets a sequence above seq, so it is sent again whole, and the held
// value then matches no record.
type cursor struct{ seq, held int64 }

// Mark is where an incremental export leaves a sink's cursor: hand it to
// Commit once the records read are safe (written and flushed, or accepted by
// a server).
type Mark struct {
	Conversation, Sink string
	// Records counts the records the export read.
	Records  int
	created  int64 // tells a cleared and re-created conversation apart
	from, to cursor
}

// Export calls fn for each record of conv that opt selects, in transcript
// order, all read from one snapshot of the conversation, and returns the Mark
// to Commit when fn's output is safe. It moves no cursor itself. It returns
// ErrNotFound (wrapped) when conv does not exist.
func (s *Store) Export(ctx context.Context, conv string, opt ExportOptions, fn func(Row) error) (Mark, error) {
	m := Mark{Conversation: conv, Sink: opt.Sink}
	// A read-only transaction is a plain BEGIN, not the DSN's IMMEDIATE: a
	// snapshot that does not block writers however long the output takes.
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return m, fmt.Errorf("export %q: %w", conv, err)
	}
	defer tx.Rollback()

	var next int64
	err = tx.QueryRowContext(ctx, `SELECT created, next_seq FROM conversations WHERE id = ?`, conv).Scan(&m.created, &next)
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("conversation %q: %w", conv, ErrNotFound)
	}
	if err != nil {
		return m, fmt.Errorf("export %q: %w", conv, err)
	}
	if opt.Sink != "" {
		err = tx.QueryRowContext(ctx, `SELECT seq, held FROM export_cursors WHERE conversation = ? AND sink = ?`,
			conv, opt.Sink).Scan(&m.from.seq, &m.from.held)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return m, fmt.Errorf("read export cursor of %q: %w", conv, err)
		}
	}
	m.to.seq = next - 1

	var last Place
	hasLast := false
	if opt.ExcludeLast {
		err = tx.QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? ORDER BY pos DESC, sub DESC LIMIT 1`,
			conv).Scan(&last.Pos, &last.Sub)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return m, fmt.Errorf("find the last record of %q: %w", conv, err)
		}
		hasLast = err == nil
	}

	q := `SELECT pos, sub, seq, role, body FROM records WHERE conversation = ?1`
	if m.from != (cursor{}) {
		q += ` AND (seq > ?2 OR seq = ?3)`
	}
	rows, err := tx.QueryContext(ctx, q+` ORDER BY pos, sub`, conv, m.from.seq, m.from.held)
	if err != nil {
		return m, fmt.Errorf("export %q: %w", conv, err)
	}
	defer rows.Close()
	var r Row
	var body sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&r.Pos, &r.Sub, &r.Seq, &r.Role, &body); err != nil {
			return m, fmt.Errorf("export %q: %w", conv, err)
		}
		if hasLast && r.Pos == last.Pos && r.Sub == last.Sub {
			m.to.held = r.Seq
			continue
		}
		r.Body = body
		if err := fn(r); err != nil {
			return m, err
		}
		m.Records++
	}
	if err := rows.Err(); err != nil {
		return m, fmt.Errorf("export %q: %w", conv, err)
	}
	s.log().Debug("read for export", "conversation", conv, "sink", opt.Sink, "records", m.Records,
		"from_seq", m.from.seq, "to_seq", m.to.seq, "held", m.to.held)
	return m, nil
}

// Commit moves the cursors of marks, all in one transaction. It fails with
// ErrCursorMoved, moving none, when a cursor is no longer where its export
// found it. Marks of exports without a sink are ignored.
func (s *Store) Commit(ctx context.Context, marks ...Mark) error {
	marks = slices.DeleteFunc(slices.Clone(marks), func(m Mark) bool { return m.Sink == "" || m.to == m.from })
	if len(marks) == 0 {
		return nil // spare the write lock
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		now := s.nowMillis()
		for _, m := range marks {
			var created int64
			err := tx.QueryRowContext(ctx, `SELECT created FROM conversations WHERE id = ?`, m.Conversation).Scan(&created)
			if errors.Is(err, sql.ErrNoRows) || (err == nil && created != m.created) {
				return fmt.Errorf("conversation %q, sink %q: %w", m.Conversation, m.Sink, ErrCursorMoved)
			}
			if err != nil {
				return fmt.Errorf("commit export of %q: %w", m.Conversation, err)
			}
			var cur cursor
			err = tx.QueryRowContext(ctx, `SELECT seq, held FROM export_cursors WHERE conversation = ? AND sink = ?`,
				m.Conversation, m.Sink).Scan(&cur.seq, &cur.held)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("commit export of %q: %w", m.Conversation, err)
			}
			if cur != m.from {
				return fmt.Errorf("conversation %q, sink %q: %w", m.Conversation, m.Sink, ErrCursorMoved)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO export_cursors (conversation, sink, seq, held, updated)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation, sink)
				DO UPDATE SET seq = excluded.seq, held = excluded.held, updated = excluded.updated`,
				m.Conversation, m.Sink, m.to.seq, m.to.held, now); err != nil {
				return fmt.Errorf("commit export of %q: %w", m.Conversation, err)
			}
			s.log().Info("moved export cursor", "conversation", m.Conversation, "sink", m.Sink, "seq", m.to.seq, "held", m.to.held)
		}
		return nil
	})
}

// ExportConversations returns, ordered by id, the conversations an
// incremental export to sink may find something in: changed since the
// sink's cursor, or with a record held back. With sink "" it returns them all.
func (s *Store) ExportConversations(ctx context.Context, sink string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id FROM conversations c
		LEFT JOIN export_cursors e ON e.conversation = c.id AND e.sink = ?1
		WHERE ?1 = '' OR e.seq IS NULL OR c.next_seq - 1 > e.seq OR e.held > 0
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
func (s *Store) NextExport(ctx context.Context, conv, sink string) (p Place, ok bool, err error) {
	var c cursor
	err = s.db.QueryRowContext(ctx, `SELECT seq, held FROM export_cursors WHERE conversation = ? AND sink = ?`,
		conv, sink).Scan(&c.seq, &c.held)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return p, false, fmt.Errorf("read export cursor: %w", err)
	}
	err = s.db.QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? AND (seq > ? OR seq = ?)
		ORDER BY pos, sub LIMIT 1`, conv, c.seq, c.held).Scan(&p.Pos, &p.Sub)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("find next record to export: %w", err)
	}
	return p, true, nil
}
