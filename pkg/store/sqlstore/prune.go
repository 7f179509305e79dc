package sqlstore

// Prune: old conversations removed or trimmed to their latest summary.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
)

// Prune removes old conversations, or trims them to their latest summary,
// as opt says, in one transaction; then, unless it is a dry run, it runs
// VACUUM when more than a quarter of the file is free pages (a VACUUM that
// fails is logged, not returned: the prune itself is committed). A trim does
// not count as activity: the conversation keeps its last-activity time.
func (s *Store) Prune(ctx context.Context, opt store.PruneOptions) (store.PruneResult, error) {
	var res store.PruneResult
	err := s.inTx(ctx, func(tx conn) error {
		globArg := "" // matches everything
		if opt.Glob != "" {
			globArg = tx.d.GlobArg(opt.Glob)
		}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM conversations
			WHERE (CAST(?1 AS BIGINT) = 0 OR last_created < ?1) AND (?2 = '' OR `+tx.d.Glob("id", "?2")+`) ORDER BY id`+tx.forUpdate(),
			opt.Before, globArg)
		if err != nil {
			return fmt.Errorf("list conversations: %w", err)
		}
		var convs []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("list conversations: %w", err)
			}
			convs = append(convs, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("list conversations: %w", err)
		}
		for _, conv := range convs {
			p := store.Pruned{Conversation: conv, Deleted: !opt.KeepSummaries}
			if opt.KeepSummaries {
				p.Records, err = trimToSummary(ctx, tx, s.nowMillis(), conv)
				if err == nil && p.Records > 0 {
					err = s.keepFigures(ctx, tx, conv, 0, true)
				}
			} else if err = rememberDeleted(ctx, tx, s.nowMillis(), `conversation = ?`, conv); err == nil {
				p.Records, err = deleteConversation(ctx, tx, conv)
			}
			if err != nil {
				return err
			}
			if !p.Deleted && p.Records == 0 {
				continue
			}
			res.Conversations = append(res.Conversations, p)
			res.Records += p.Records
			if p.Deleted {
				res.Deleted++
			} else {
				res.Trimmed++
			}
		}
		if opt.BatchBefore > 0 {
			if res.BatchDropped, err = dropBatchRequests(ctx, tx, opt.BatchBefore, nil); err != nil {
				return err
			}
		}
		if opt.DryRun {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		s.log().Info("prune dry run", "deleted", res.Deleted, "trimmed", res.Trimmed, "records", res.Records)
		return res, nil
	}
	if err != nil {
		return res, err
	}
	s.log().Info("pruned", "deleted", res.Deleted, "trimmed", res.Trimmed, "records", res.Records)
	if res.Records > 0 || res.Deleted > 0 {
		// The prune is committed: a VACUUM that cannot run now (another
		// process busy past the timeout) is a note, not a failure.
		if res.Vacuumed, res.FreedBytes, err = s.d.Compact(ctx, s.db); err != nil {
			s.log().Warn("compaction skipped", "error", err.Error())
		} else if res.Vacuumed {
			s.log().Info("compacted", "freed_bytes", res.FreedBytes)
		}
	}
	return res, nil
}

// trimToSummary deletes the records of conv before its latest summary but
// its latest system record, returning how many went.
func trimToSummary(ctx context.Context, tx conn, now int64, conv string) (int64, error) {
	var sum store.Place
	err := tx.QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? AND role = 'summary'
		AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1`, conv).Scan(&sum.Pos, &sum.Sub)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("find the latest summary of %q: %w", conv, err)
	}
	where := `conversation = ?1 AND (pos, sub) < (?2, ?3)
		AND id IS DISTINCT FROM (SELECT id FROM records WHERE conversation = ?1 AND role = 'system'
			AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1)`
	if err := rememberDeleted(ctx, tx, now, where, conv, sum.Pos, sum.Sub); err != nil {
		return 0, err
	}
	n, err := deleteRecords(ctx, tx, where, conv, sum.Pos, sum.Sub)
	if err != nil {
		return 0, fmt.Errorf("trim %q: %w", conv, err)
	}
	if n > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET record_count = record_count - ?, shape = shape + 1
			WHERE id = ?`, n, conv); err != nil {
			return 0, fmt.Errorf("update conversation %q: %w", conv, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM absorbed WHERE conversation = ?1
			AND target NOT IN (SELECT id FROM records WHERE conversation = ?1)`, conv); err != nil {
			return 0, fmt.Errorf("trim absorbed ids of %q: %w", conv, err)
		}
	}
	return n, nil
}
