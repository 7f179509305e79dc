package store

// This file holds the edits of a stored conversation after the fact,
// besides append and summaries: annotate, fork, rewind and prune, the
// record references they resolve, and the status list --json reports.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Record references a command may use instead of an id: the names of
// transcript.Ref, which parses them; the store resolves them (see resolve).
const (
	RefLast          = string(transcript.RefLast)          // the last record, whatever its role
	RefLastUser      = string(transcript.RefLastUser)      // the last user record that is not a placeholder
	RefLastAssistant = string(transcript.RefLastAssistant) // the last assistant record
)

// ErrExists is returned when a write would replace a conversation that
// exists and was not asked to.
var ErrExists = errors.New("already exists")

// dbtx is what the lifecycle methods need of a transaction.
type dbtx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var discard = slog.New(slog.DiscardHandler)

// log returns the store's logger, or one that writes nothing.
func (s *Store) log() *slog.Logger {
	if s.Logger == nil {
		return discard
	}
	return s.Logger
}

// stored is one record as a lifecycle method found it.
type stored struct {
	ID       string
	Pos, Sub int64
	Role     string
	Body     []byte
}

func existsTx(ctx context.Context, q dbtx, conv string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM conversations WHERE id = ?`, conv).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read conversation %q: %w", conv, err)
	}
	return true, nil
}

func mustExistTx(ctx context.Context, q dbtx, conv string) error {
	ok, err := existsTx(ctx, q, conv)
	if err == nil && !ok {
		err = fmt.Errorf("conversation %q: %w", conv, ErrNotFound)
	}
	return err
}

// resolve finds the record ref names in conv: an id (a record's own, or one
// it absorbed in a merge), or one of the Ref names.
func resolve(ctx context.Context, q dbtx, conv, ref string) (stored, error) {
	var r stored
	scan := func(row *sql.Row) error { return row.Scan(&r.ID, &r.Pos, &r.Sub, &r.Role, &r.Body) }
	const cols = `SELECT id, pos, sub, role, body FROM records WHERE conversation = ?1`
	var err error
	switch ref {
	case RefLast:
		err = scan(q.QueryRowContext(ctx, cols+` ORDER BY pos DESC, sub DESC LIMIT 1`, conv))
	case RefLastAssistant:
		err = scan(q.QueryRowContext(ctx, cols+` AND role = 'assistant' ORDER BY pos DESC, sub DESC LIMIT 1`, conv))
	case RefLastUser:
		err = lastRealUser(ctx, q, conv, &r)
	default:
		err = scan(q.QueryRowContext(ctx, cols+` AND id = (SELECT coalesce(
			(SELECT id FROM records WHERE conversation = ?1 AND id = ?2),
			(SELECT target FROM absorbed WHERE conversation = ?1 AND id = ?2)))`, conv, ref))
	}
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("record %s in conversation %q: %w", ref, conv, ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("find record %s: %w", ref, err)
	}
	return r, nil
}

// lastRealUser finds the last user record that is not a placeholder.
func lastRealUser(ctx context.Context, q dbtx, conv string, r *stored) error {
	rows, err := q.QueryContext(ctx, `SELECT id, pos, sub, role, body FROM records
		WHERE conversation = ? AND role = 'user' ORDER BY pos DESC, sub DESC`, conv)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&r.ID, &r.Pos, &r.Sub, &r.Role, &r.Body); err != nil {
			return err
		}
		rec, err := parseStored(r.Body)
		if err != nil {
			return err
		}
		if !rec.IsFake() {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return sql.ErrNoRows
}

func parseStored(body []byte) (transcript.Record, error) {
	var r transcript.Record
	if err := json.Unmarshal(body, &r); err != nil {
		return r, fmt.Errorf("stored record is corrupt: %w", err)
	}
	return r, nil
}

// Annotate changes the metadata of the record ref names (see resolve) as an
// says, in one transaction, and returns the record as stored. The change
// takes a new change sequence, so an incremental export sends the record
// again. It returns ErrNotFound (wrapped) for a missing conversation or
// record, and the *transcript.InputError of an unknown timing key.
func (s *Store) Annotate(ctx context.Context, conv, ref string, an *transcript.Annotation) ([]byte, error) {
	var out []byte
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := mustExistTx(ctx, tx, conv); err != nil {
			return err
		}
		st, err := resolve(ctx, tx, conv, ref)
		if err != nil {
			return err
		}
		rec, err := parseStored(st.Body)
		if err != nil {
			return err
		}
		if err := an.Apply(&rec); err != nil {
			return err
		}
		if err := transcript.Validate(&rec); err != nil {
			return err
		}
		var seq int64
		if err := tx.QueryRowContext(ctx, `SELECT next_seq FROM conversations WHERE id = ?`, conv).Scan(&seq); err != nil {
			return fmt.Errorf("read conversation: %w", err)
		}
		out = transcript.AppendJSON(nil, &rec)
		if _, err := tx.ExecContext(ctx, `UPDATE records SET body = ?, seq = ?, created = ? WHERE conversation = ? AND id = ?`,
			string(out), seq, rec.Metadata.Timing.Creation, conv, st.ID); err != nil {
			return fmt.Errorf("update record %s: %w", st.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET next_seq = ?, updated = ? WHERE id = ?`,
			seq+1, s.nowMillis(), conv); err != nil {
			return fmt.Errorf("update conversation: %w", err)
		}
		s.log().Info("annotated record", "conversation", conv, "id", st.ID, "role", st.Role, "seq", seq,
			"timing", len(an.Timing), "aux", len(an.Aux), "unset_aux", len(an.UnsetAux))
		return nil
	})
	return out, err
}

// ForkOptions choose what Fork copies.
type ForkOptions struct {
	// At names the last record copied (an id or a Ref); empty copies all.
	At string
	// Force replaces the target conversation when it exists; without it
	// an existing target is ErrExists.
	Force bool
}

// ForkResult says what a fork did.
type ForkResult struct {
	Records  int   // records copied
	Replaced int64 // records of the target deleted first (with Force)
}

// forkPage bounds the records a fork holds in memory at once.
const forkPage = 256

// Fork copies the records of src up to and including opt.At into a new
// conversation dst, in one transaction: each record gets a new id and keeps
// its old one under aux.forkedFrom; summaries have their summaryIds
// remapped. Records keep their places, so dst reads as a prefix of src.
// It returns ErrNotFound (wrapped) when src or opt.At does not exist, and
// ErrExists when dst does and opt.Force is unset.
func (s *Store) Fork(ctx context.Context, src, dst string, opt ForkOptions, ids *transcript.IDs) (ForkResult, error) {
	var res ForkResult
	if src == dst {
		return res, fmt.Errorf("fork %q onto itself", src)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := mustExistTx(ctx, tx, src); err != nil {
			return err
		}
		end := Place{Pos: 1 << 62}
		if opt.At != "" {
			st, err := resolve(ctx, tx, src, opt.At)
			if err != nil {
				return err
			}
			end = Place{st.Pos, st.Sub}
		}
		exists, err := existsTx(ctx, tx, dst)
		if err != nil {
			return err
		}
		if exists {
			if !opt.Force {
				return fmt.Errorf("conversation %q %w; add --force to replace it", dst, ErrExists)
			}
			if res.Replaced, err = deleteConversation(ctx, tx, dst); err != nil {
				return err
			}
		}
		now := s.nowMillis()
		fk := transcript.NewForker(dst, ids, s.nowMillis)
		ins, err := tx.PrepareContext(ctx, `INSERT INTO records (conversation, id, pos, sub, role, created, seq, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer ins.Close()
		var seq, maxPos int64
		var buf []byte
		after := Place{Pos: -1}
		for {
			page, err := readPage(ctx, tx, src, after, end)
			if err != nil {
				return err
			}
			for _, st := range page {
				rec, err := parseStored(st.Body)
				if err != nil {
					return fmt.Errorf("record %s: %w", st.ID, err)
				}
				c := fk.Fork(rec)
				if err := transcript.Validate(&c); err != nil {
					return fmt.Errorf("fork record %s: %w", st.ID, err)
				}
				seq++
				buf = transcript.AppendJSON(buf[:0], &c)
				if _, err := ins.ExecContext(ctx, dst, c.ID, st.Pos, st.Sub, st.Role, c.Metadata.Timing.Creation, seq, string(buf)); err != nil {
					return fmt.Errorf("insert record %s: %w", c.ID, err)
				}
				maxPos = max(maxPos, st.Pos)
				after = Place{st.Pos, st.Sub}
			}
			if len(page) < forkPage {
				break
			}
		}
		res.Records = int(seq)
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, created, updated, next_pos, next_seq) VALUES (?, ?, ?, ?, ?)`,
			dst, now, now, maxPos+1, seq+1); err != nil {
			return fmt.Errorf("create conversation %q: %w", dst, err)
		}
		s.log().Info("forked conversation", "from", src, "to", dst, "at", opt.At, "records", res.Records, "replaced", res.Replaced)
		return nil
	})
	return res, err
}

// readPage reads up to forkPage records of conv placed after after and at
// or before end, in transcript order.
func readPage(ctx context.Context, q dbtx, conv string, after, end Place) ([]stored, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, pos, sub, role, body FROM records
		WHERE conversation = ? AND (pos, sub) > (?, ?) AND (pos, sub) <= (?, ?)
		ORDER BY pos, sub LIMIT ?`, conv, after.Pos, after.Sub, end.Pos, end.Sub, forkPage)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", conv, err)
	}
	defer rows.Close()
	var page []stored
	for rows.Next() {
		var st stored
		if err := rows.Scan(&st.ID, &st.Pos, &st.Sub, &st.Role, &st.Body); err != nil {
			return nil, fmt.Errorf("read %q: %w", conv, err)
		}
		page = append(page, st)
	}
	return page, rows.Err()
}

// deleteConversation deletes conv and everything stored for it within tx,
// returning how many records went.
func deleteConversation(ctx context.Context, tx dbtx, conv string) (int64, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, conv); err != nil {
		return 0, fmt.Errorf("delete conversation %q: %w", conv, err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE conversation = ?`, conv)
	if err != nil {
		return 0, fmt.Errorf("delete records of %q: %w", conv, err)
	}
	n, _ := res.RowsAffected()
	for _, t := range []string{"absorbed", "export_cursors"} {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE conversation = ?", conv); err != nil {
			return 0, fmt.Errorf("delete %s of %q: %w", t, conv, err)
		}
	}
	return n, nil
}

// RewindResult says what a rewind removed.
type RewindResult struct {
	Records   int // records removed, summaries included
	Summaries int // of which summaries
}

// errDryRun rolls back a transaction that only looked.
var errDryRun = errors.New("dry run")

// RewindOptions say what Rewind does with what it removes.
type RewindOptions struct {
	// DryRun removes nothing: Removed still sees what would go.
	DryRun bool
	// Removed, when set, is called for each removed record, in transcript
	// order, inside the transaction.
	Removed func(Row) error
	// Written, when set, is called after the last Removed and before the
	// transaction commits: flush the output there, so records are removed
	// only once they were written out.
	Written func() error
}

// Rewind removes the records of conv placed after the record to names, and
// any summary that covered one of them, in one transaction, handing each to
// opt.Removed first. It returns ErrNotFound (wrapped) when conv or to does
// not exist.
func (s *Store) Rewind(ctx context.Context, conv, to string, opt RewindOptions) (RewindResult, error) {
	var res RewindResult
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := mustExistTx(ctx, tx, conv); err != nil {
			return err
		}
		st, err := resolve(ctx, tx, conv, to)
		if err != nil {
			return err
		}
		gone, err := rewindSet(ctx, tx, conv, Place{st.Pos, st.Sub})
		if err != nil {
			return err
		}
		ids, _ := json.Marshal(gone)
		const which = `conversation = ?1 AND ((pos, sub) > (?2, ?3) OR id IN (SELECT value FROM json_each(?4)))`
		rows, err := tx.QueryContext(ctx, `SELECT pos, sub, seq, role, body FROM records WHERE `+which+` ORDER BY pos, sub`,
			conv, st.Pos, st.Sub, string(ids))
		if err != nil {
			return fmt.Errorf("read %q: %w", conv, err)
		}
		defer rows.Close()
		var r Row
		for rows.Next() {
			if err := rows.Scan(&r.Pos, &r.Sub, &r.Seq, &r.Role, &r.Body); err != nil {
				return fmt.Errorf("read %q: %w", conv, err)
			}
			res.Records++
			if r.Role == string(transcript.RoleSummary) {
				res.Summaries++
			}
			if opt.Removed != nil {
				if err := opt.Removed(r); err != nil {
					return err
				}
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read %q: %w", conv, err)
		}
		rows.Close()
		if opt.Written != nil {
			if err := opt.Written(); err != nil {
				return err
			}
		}
		if opt.DryRun {
			return errDryRun
		}
		if res.Records == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM records WHERE `+which, conv, st.Pos, st.Sub, string(ids)); err != nil {
			return fmt.Errorf("delete records of %q: %w", conv, err)
		}
		// Merged-away ids that named a removed record may be appended again.
		if _, err := tx.ExecContext(ctx, `DELETE FROM absorbed WHERE conversation = ?1
			AND target IN (SELECT value FROM json_each(?2))`, conv, string(ids)); err != nil {
			return fmt.Errorf("delete absorbed ids of %q: %w", conv, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET updated = ? WHERE id = ?`, s.nowMillis(), conv); err != nil {
			return fmt.Errorf("update conversation: %w", err)
		}
		s.log().Info("rewound conversation", "conversation", conv, "to", st.ID, "removed", res.Records, "summaries", res.Summaries)
		return nil
	})
	if errors.Is(err, errDryRun) {
		s.log().Info("rewind dry run", "conversation", conv, "to", to, "would_remove", res.Records)
		err = nil
	}
	return res, err
}

// rewindSet returns the ids of every record a rewind to cut removes: those
// after cut, and the summaries before it that cover one of them (a summary
// covering such a summary included).
func rewindSet(ctx context.Context, tx dbtx, conv string, cut Place) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM records WHERE conversation = ? AND (pos, sub) > (?, ?)`, conv, cut.Pos, cut.Sub)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", conv, err)
	}
	gone := map[string]bool{}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read %q: %w", conv, err)
		}
		gone[id] = true
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %q: %w", conv, err)
	}
	rows, err = tx.QueryContext(ctx, `SELECT id, body FROM records WHERE conversation = ? AND role = 'summary'
		AND role IN ('system', 'summary') AND (pos, sub) <= (?, ?) ORDER BY pos, sub`, conv, cut.Pos, cut.Sub)
	if err != nil {
		return nil, fmt.Errorf("read summaries of %q: %w", conv, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return nil, fmt.Errorf("read summaries of %q: %w", conv, err)
		}
		rec, err := parseStored(body)
		if err != nil {
			return nil, fmt.Errorf("summary %s: %w", id, err)
		}
		// In transcript order, so a summary covering a removed one is seen after it.
		if transcript.Covers(&rec, gone) {
			gone[id] = true
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}

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
