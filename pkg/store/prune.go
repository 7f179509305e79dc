package store

// Prune: old conversations removed or trimmed to their latest summary.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// PruneOptions choose what Prune removes.
type PruneOptions struct {
	// Before, when set, selects the conversations whose last activity (ms
	// since the epoch) is older than it.
	Before int64
	// Glob, when set, selects the conversations whose id matches it
	// (SQLite GLOB: * any characters, ? one, [abc] a set; case-sensitive).
	Glob string
	// KeepSummaries trims each selected conversation to its latest summary,
	// the records after it and its latest system record, instead of deleting
	// it; a conversation without a summary is left alone.
	KeepSummaries bool
	DryRun        bool
}

// Pruned is what Prune did (or, in a dry run, would do) to one conversation.
type Pruned struct {
	Conversation string
	Deleted      bool  // deleted whole; otherwise trimmed
	Records      int64 // records removed
}

// PruneResult tallies a prune.
type PruneResult struct {
	Conversations []Pruned
	Deleted       int   // conversations deleted
	Trimmed       int   // conversations trimmed
	Records       int64 // records removed
	Vacuumed      bool
	FreedBytes    int64 // file bytes given back by VACUUM
}

// Prune removes old conversations, or trims them to their latest summary,
// as opt says, in one transaction; then, unless it is a dry run, it runs
// VACUUM when more than a quarter of the file is free pages (a VACUUM that
// fails is logged, not returned: the prune itself is committed). A trim does
// not count as activity: the conversation keeps its last-activity time.
func (s *Store) Prune(ctx context.Context, opt PruneOptions) (PruneResult, error) {
	var res PruneResult
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM conversations
			WHERE (?1 = 0 OR updated < ?1) AND (?2 = '' OR id GLOB ?2) ORDER BY id`, opt.Before, opt.Glob)
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
			p := Pruned{Conversation: conv, Deleted: !opt.KeepSummaries}
			if opt.KeepSummaries {
				p.Records, err = trimToSummary(ctx, tx, conv)
			} else {
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
		if res.Vacuumed, res.FreedBytes, err = s.vacuumIfSparse(ctx); err != nil {
			s.log().Warn("vacuum skipped", "error", err.Error())
		}
	}
	return res, nil
}

// trimToSummary deletes the records of conv before its latest summary but
// its latest system record, returning how many went.
func trimToSummary(ctx context.Context, tx dbtx, conv string) (int64, error) {
	var sum Place
	err := tx.QueryRowContext(ctx, `SELECT pos, sub FROM records WHERE conversation = ? AND role = 'summary'
		AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1`, conv).Scan(&sum.Pos, &sum.Sub)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("find the latest summary of %q: %w", conv, err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE conversation = ?1 AND (pos, sub) < (?2, ?3)
		AND id IS NOT (SELECT id FROM records WHERE conversation = ?1 AND role = 'system'
			AND role IN ('system', 'summary') ORDER BY pos DESC, sub DESC LIMIT 1)`, conv, sum.Pos, sum.Sub)
	if err != nil {
		return 0, fmt.Errorf("trim %q: %w", conv, err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM absorbed WHERE conversation = ?1
			AND target NOT IN (SELECT id FROM records WHERE conversation = ?1)`, conv); err != nil {
			return 0, fmt.Errorf("trim absorbed ids of %q: %w", conv, err)
		}
	}
	return n, nil
}

// vacuumIfSparse runs VACUUM when more than a quarter of the file's pages
// are free, and returns the bytes it gave back.
func (s *Store) vacuumIfSparse(ctx context.Context) (bool, int64, error) {
	pages := func() (total, free, size int64, err error) {
		for _, p := range []struct {
			name string
			v    *int64
		}{{"page_count", &total}, {"freelist_count", &free}, {"page_size", &size}} {
			if err = s.db.QueryRowContext(ctx, "PRAGMA "+p.name).Scan(p.v); err != nil {
				return
			}
		}
		return
	}
	total, free, size, err := pages()
	if err != nil {
		return false, 0, fmt.Errorf("read free pages: %w", err)
	}
	if free*4 <= total {
		s.log().Debug("no vacuum", "pages", total, "free", free)
		return false, 0, nil
	}
	start := time.Now()
	if _, err := s.db.ExecContext(ctx, "VACUUM"); err != nil {
		return false, 0, fmt.Errorf("vacuum: %w", err)
	}
	after, _, _, err := pages()
	if err != nil {
		return true, 0, fmt.Errorf("read pages: %w", err)
	}
	freed := (total - after) * size
	s.log().Info("vacuumed", "pages_before", total, "pages_after", after, "freed_bytes", freed, "took_ms", time.Since(start).Milliseconds())
	return true, freed, nil
}
