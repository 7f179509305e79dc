package sqlstore

// What an export keeps for later: the cursors an --ack export leaves for
// the consumer to commit, and the log files --to file:// appends to.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/convo-cli/convo/pkg/store"
)

// Advance moves each mark's cursor forward to its To, all in one
// transaction, and returns how many moved. Unlike Commit it does not need
// the cursor where the export found it, only not behind that: the consumer
// may confirm exports out of order, twice, or after a later export was
// committed, and none of that may move a cursor back.
func (s *Store) Advance(ctx context.Context, marks ...store.Mark) (int, error) {
	marks = slices.DeleteFunc(slices.Clone(marks), func(m store.Mark) bool { return m.Sink == "" || m.To == m.From })
	if len(marks) == 0 {
		return 0, nil // spare the write lock
	}
	var moved int
	err := s.inTx(ctx, func(tx conn) error {
		moved = 0
		now := s.nowMillis()
		for _, m := range marks {
			var created int64
			err := tx.QueryRowContext(ctx, `SELECT created FROM conversations WHERE id = ?`+tx.forUpdate(), m.Conversation).Scan(&created)
			if errors.Is(err, sql.ErrNoRows) || (err == nil && created != m.Created) {
				continue // cleared since: what the mark stands for is gone
			}
			if err != nil {
				return fmt.Errorf("advance export cursor of %q: %w", m.Conversation, err)
			}
			var cur store.Cursor
			err = tx.QueryRowContext(ctx, `SELECT seq, held FROM export_cursors WHERE conversation = ? AND sink = ?`,
				m.Conversation, m.Sink).Scan(&cur.Seq, &cur.Held)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("advance export cursor of %q: %w", m.Conversation, err)
			}
			if cur.Covers(m.To) {
				continue // already there or past it
			}
			if !cur.Covers(m.From) {
				return fmt.Errorf("conversation %q, sink %q: %w", m.Conversation, m.Sink, store.ErrCursorMoved)
			}
			if !m.To.Covers(cur) {
				continue // moved aside by another export: To would drop some of it, staying drops nothing
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO export_cursors (conversation, sink, seq, held, updated)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation, sink)
				DO UPDATE SET seq = excluded.seq, held = excluded.held, updated = excluded.updated`,
				m.Conversation, m.Sink, m.To.Seq, m.To.Held, now); err != nil {
				return fmt.Errorf("advance export cursor of %q: %w", m.Conversation, err)
			}
			s.log().Info("moved export cursor", "conversation", m.Conversation, "sink", m.Sink, "seq", m.To.Seq, "held", m.To.Held)
			moved++
		}
		return nil
	})
	if err != nil {
		return 0, err // rolled back: nothing moved
	}
	return moved, nil
}

// ExportFile returns what was recorded of the log file path on host.
func (s *Store) ExportFile(ctx context.Context, host, path string) (store.ExportFile, bool, error) {
	f := store.ExportFile{Host: host, Path: path}
	var dev, inode, writing int64
	err := s.conn().QueryRowContext(ctx, `SELECT dev, inode, size, writing, updated FROM export_files WHERE host = ? AND path = ?`,
		host, path).Scan(&dev, &inode, &f.Size, &writing, &f.Updated)
	if errors.Is(err, sql.ErrNoRows) {
		return f, false, nil
	}
	if err != nil {
		return f, false, fmt.Errorf("read export file %s: %w", path, err)
	}
	// Device and inode numbers are unsigned; the columns hold their bits.
	f.Dev, f.Inode, f.Writing = uint64(dev), uint64(inode), writing != 0
	return f, true, nil
}

// SetExportFile records f under its host and path.
func (s *Store) SetExportFile(ctx context.Context, f store.ExportFile) error {
	writing := 0
	if f.Writing {
		writing = 1
	}
	return s.inTx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO export_files (host, path, dev, inode, size, writing, updated)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (host, path)
			DO UPDATE SET dev = excluded.dev, inode = excluded.inode, size = excluded.size,
				writing = excluded.writing, updated = excluded.updated`,
			f.Host, f.Path, int64(f.Dev), int64(f.Inode), f.Size, writing, s.nowMillis())
		if err != nil {
			return fmt.Errorf("record export file %s: %w", f.Path, err)
		}
		return nil
	})
}
