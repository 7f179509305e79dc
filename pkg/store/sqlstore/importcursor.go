package sqlstore

// Import cursors (convo import): how far each source file was read into
// each conversation, moved in the transaction that appends what it covers.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// ImportAppend appends the records of recs to cur.Conversation and stores cur
// in the same transaction, unless the stored cursor is already past it.
func (s *Store) ImportAppend(ctx context.Context, cur store.ImportCursor, ids *transcript.IDs,
	recs transcript.Stream) (store.AppendResult, error) {
	var res store.AppendResult
	conv := cur.Conversation
	var interleaved string
	err := s.inTxOnce(ctx, func(tx conn) error {
		interleaved = ""
		if cur.After != nil {
			// A later chunk of one import: the conversation must be as the
			// chunk before left it. If a clear, prune or rewind came
			// between, these records are remembered as deleted, not stored.
			var st store.ImportState
			err := tx.QueryRowContext(ctx, `SELECT created, deletions FROM conversations WHERE id = ?`+tx.forUpdate(), conv).Scan(&st.Created, &st.Deletions)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				interleaved = "cleared or pruned"
			case err != nil:
				return err
			case st != *cur.After:
				interleaved = "rewound, trimmed or summarized with --delete-originals"
			}
			if interleaved != "" {
				var ids []string
				if err := recs(func(r *transcript.Record) error {
					if r.ID != "" {
						ids = append(ids, r.ID)
					}
					return nil
				}); err != nil {
					return err
				}
				return rememberIDs(ctx, tx, s.nowMillis(), conv, ids)
			}
		}
		existed, err := exists(ctx, tx, conv, "")
		if err != nil {
			return err
		}
		deleted := 0
		kept, err := deletedFilter(ctx, tx, recs, &deleted)
		if err != nil {
			return err
		}
		err = s.appendTx(ctx, tx, conv, nil, ids, kept, &res)
		res.Deleted = deleted
		switch {
		case errors.Is(err, errNothing):
			res = store.AppendResult{Skipped: res.Skipped, Deleted: deleted}
			if !existed {
				// Nothing to keep: the append made the conversation's row only.
				if _, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE id = ? AND next_pos = 1`, conv); err != nil {
					return fmt.Errorf("import %q: %w", conv, err)
				}
			}
		case err != nil:
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT created, deletions FROM conversations WHERE id = ?`, conv).
			Scan(&res.State.Created, &res.State.Deletions); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return s.putImportCursor(ctx, tx, cur)
	})
	if err == nil && interleaved != "" {
		return store.AppendResult{}, &store.InterleavedError{Conversation: conv, What: interleaved}
	}
	if err != nil {
		return res, notStored(err)
	}
	s.log().Info("imported", "conversation", conv, "source", cur.Source, "entries", cur.Entries,
		"inserted", res.Inserted, "merged", res.Merged, "skipped", res.Skipped)
	return res, nil
}

// putImportCursor stores cur unless the stored one imported more entries.
func (s *Store) putImportCursor(ctx context.Context, tx conn, cur store.ImportCursor) error {
	var have int64
	err := tx.QueryRowContext(ctx, `SELECT entries FROM import_cursors WHERE source = ? AND conversation = ?`+tx.forUpdate(),
		cur.Source, cur.Conversation).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, `INSERT INTO import_cursors (source, conversation, tool, size, mtime, entries, last_entry, head, resume, updated)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, cur.Source, cur.Conversation, cur.Tool, cur.Size, cur.MTime, cur.Entries,
			cur.LastEntry, cur.Head, cur.Resume, s.nowMillis())
	case err != nil:
	case have > cur.Entries:
		return nil // another import went further: never back
	default:
		_, err = tx.ExecContext(ctx, `UPDATE import_cursors SET tool = ?, size = ?, mtime = ?, entries = ?, last_entry = ?,
			head = ?, resume = ?, updated = ? WHERE source = ? AND conversation = ?`, cur.Tool, cur.Size, cur.MTime, cur.Entries,
			cur.LastEntry, cur.Head, cur.Resume, s.nowMillis(), cur.Source, cur.Conversation)
	}
	if err != nil {
		return fmt.Errorf("import cursor of %s: %w", cur.Source, err)
	}
	return nil
}

// ImportCursors calls fn for the cursors of source ("" for all).
func (s *Store) ImportCursors(ctx context.Context, source string, fn func(store.ImportCursor) error) error {
	rows, err := s.conn().QueryContext(ctx, `SELECT source, conversation, tool, size, mtime, entries, last_entry, head, resume, updated
		FROM import_cursors WHERE ?1 = '' OR source = ?1 ORDER BY source, conversation`, source)
	if err != nil {
		return fmt.Errorf("read import cursors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c store.ImportCursor
		if err := rows.Scan(&c.Source, &c.Conversation, &c.Tool, &c.Size, &c.MTime, &c.Entries, &c.LastEntry, &c.Head, &c.Resume, &c.Updated); err != nil {
			return fmt.Errorf("read import cursors: %w", err)
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read import cursors: %w", err)
	}
	return nil
}

// insertImportCursor stores a cursor as Dump gave it (Load).
func insertImportCursor(ctx context.Context, tx conn, conv string, c *store.ImportCursor) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO import_cursors (source, conversation, tool, size, mtime, entries, last_entry, head, resume, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.Source, conv, c.Tool, c.Size, c.MTime, c.Entries, c.LastEntry, c.Head, c.Resume, c.Updated)
	return err
}
