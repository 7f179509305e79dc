package sqlstore

// Deleted records of imported conversations, remembered (import_deleted):
// an import skips a record whose id is there, so that what convo deleted
// (summarize --delete-originals, rewind, prune, clear) does not come back
// when the same entries are read again, from whatever path. Import ids
// are derived from the source (tool, session, entry), not from the path.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// rememberDeleted records the ids of the records where selects (its args
// bound to its placeholders), and the ids merged into them, when their
// conversation was imported (has an import cursor). It runs before they
// are deleted, in the same transaction.
func rememberDeleted(ctx context.Context, tx conn, now int64, where string, args ...any) error {
	t := strconv.FormatInt(now, 10)
	if _, err := tx.ExecContext(ctx, `UPDATE conversations SET deletions = deletions + 1
		WHERE id IN (SELECT conversation FROM records WHERE `+where+`)`, args...); err != nil {
		return fmt.Errorf("count deletions: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO import_deleted (id, conversation, deleted)
		SELECT id, conversation, `+t+` FROM records WHERE (`+where+`)
			AND conversation IN (SELECT conversation FROM import_cursors)
		ON CONFLICT (id) DO NOTHING`, args...); err != nil {
		return fmt.Errorf("remember deleted records: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO import_deleted (id, conversation, deleted)
		SELECT id, conversation, `+t+` FROM absorbed WHERE target IN (SELECT id FROM records WHERE `+where+`)
			AND conversation IN (SELECT conversation FROM import_cursors)
		ON CONFLICT (id) DO NOTHING`, args...); err != nil {
		return fmt.Errorf("remember deleted records: %w", err)
	}
	return nil
}

// deletedFilter is recs without the records whose id was deleted before,
// counted in *n. One query tells whether any is remembered at all.
func deletedFilter(ctx context.Context, tx conn, recs transcript.Stream, n *int) (transcript.Stream, error) {
	var any int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM import_deleted LIMIT 1`).Scan(&any)
	if errors.Is(err, sql.ErrNoRows) {
		return recs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read deleted records: %w", err)
	}
	return func(yield func(*transcript.Record) error) error {
		return recs(func(r *transcript.Record) error {
			if r.ID == "" {
				return yield(r)
			}
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM import_deleted WHERE id = ?`, strings.ToUpper(r.ID)).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return yield(r)
			}
			if err != nil {
				return fmt.Errorf("read deleted records: %w", err)
			}
			*n++
			return nil
		})
	}, nil
}

// rememberIDs remembers ids as deleted records of conv.
func rememberIDs(ctx context.Context, tx conn, now int64, conv string, ids []string) error {
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO import_deleted (id, conversation, deleted) VALUES (?, ?, ?)
			ON CONFLICT (id) DO NOTHING`, strings.ToUpper(id), conv, now); err != nil {
			return fmt.Errorf("remember deleted records: %w", err)
		}
	}
	return nil
}

// RememberDeleted remembers ids as deleted records of conv.
func (s *Store) RememberDeleted(ctx context.Context, conv string, ids []string) error {
	return s.inTx(ctx, func(tx conn) error { return rememberIDs(ctx, tx, s.nowMillis(), conv, ids) })
}

// ImportAgain forgets what convo deleted of conv and its import cursors,
// so that the next import brings the deleted records back (import
// --again); it returns how many records were remembered.
func (s *Store) ImportAgain(ctx context.Context, conv string) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM import_deleted WHERE conversation = ?`, conv)
		if err != nil {
			return fmt.Errorf("forget deleted records of %q: %w", conv, err)
		}
		n, _ = res.RowsAffected()
		if _, err := tx.ExecContext(ctx, `DELETE FROM import_cursors WHERE conversation = ?`, conv); err != nil {
			return fmt.Errorf("forget import cursors of %q: %w", conv, err)
		}
		return nil
	})
	return n, err
}
