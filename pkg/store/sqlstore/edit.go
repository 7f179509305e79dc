package sqlstore

// Edits of a stored conversation after the fact, besides append and
// summaries: annotate here, fork, rewind and prune in their own files; the
// record references they resolve and their shared helpers.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// stored is one record as a lifecycle method found it.
type stored struct {
	ID       string
	Pos, Sub int64
	Role     string
	Body     []byte
}

func existsTx(ctx context.Context, q conn, conv string) (bool, error) {
	return exists(ctx, q, conv, "")
}

// lockTx is existsTx that also locks the conversation's row until the
// transaction ends, where the dialect locks rows: call it first in every
// read-modify-write of a conversation.
func lockTx(ctx context.Context, q conn, conv string) (bool, error) {
	return exists(ctx, q, conv, q.forUpdate())
}

func exists(ctx context.Context, q conn, conv, lock string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM conversations WHERE id = ?`+lock, conv).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read conversation %q: %w", conv, err)
	}
	return true, nil
}

func mustExistTx(ctx context.Context, q conn, conv string) error {
	ok, err := existsTx(ctx, q, conv)
	return notFoundUnless(conv, ok, err)
}

// mustLockTx is mustExistTx with lockTx's lock.
func mustLockTx(ctx context.Context, q conn, conv string) error {
	ok, err := lockTx(ctx, q, conv)
	return notFoundUnless(conv, ok, err)
}

func notFoundUnless(conv string, ok bool, err error) error {
	if err == nil && !ok {
		err = fmt.Errorf("conversation %q: %w", conv, store.ErrNotFound)
	}
	return err
}

// resolve finds the record ref names in conv: an id (a record's own, or one
// it absorbed in a merge), or one of the Ref names.
func resolve(ctx context.Context, q conn, conv, ref string) (stored, error) {
	var r stored
	scan := func(row *sql.Row) error { return row.Scan(&r.ID, &r.Pos, &r.Sub, &r.Role, &r.Body) }
	const cols = `SELECT id, pos, sub, role, body FROM records WHERE conversation = ?1`
	var err error
	switch ref {
	case store.RefLast:
		err = scan(q.QueryRowContext(ctx, cols+` ORDER BY pos DESC, sub DESC LIMIT 1`, conv))
	case store.RefLastAssistant:
		err = scan(q.QueryRowContext(ctx, cols+` AND role = 'assistant' ORDER BY pos DESC, sub DESC LIMIT 1`, conv))
	case store.RefLastUser:
		err = lastRealUser(ctx, q, conv, &r)
	default:
		err = scan(q.QueryRowContext(ctx, cols+` AND id = (SELECT coalesce(
			(SELECT id FROM records WHERE conversation = ?1 AND id = ?2),
			(SELECT target FROM absorbed WHERE conversation = ?1 AND id = ?2)))`, conv, ref))
	}
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("record %s in conversation %q: %w", ref, conv, store.ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("find record %s: %w", ref, err)
	}
	return r, nil
}

// resolveCut is resolve for where fork and rewind cut the transcript: not
// right after a placeholder (store.ErrPlaceholder).
func resolveCut(ctx context.Context, q conn, conv, ref string) (stored, error) {
	st, err := resolve(ctx, q, conv, ref)
	if err != nil || st.Role != string(transcript.RoleUser) {
		return st, err
	}
	r, err := parseStored(st.Body)
	if err != nil {
		return st, err
	}
	if r.IsFake() {
		return st, fmt.Errorf("record %s of conversation %q %w", st.ID, conv, store.ErrPlaceholder)
	}
	return st, nil
}

// lastRealUser finds the last user record that is not a placeholder.
func lastRealUser(ctx context.Context, q conn, conv string, r *stored) error {
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
	if err := transcript.DecodeStored(body, &r); err != nil {
		return r, fmt.Errorf("stored record is corrupt: %w", err)
	}
	return r, nil
}

// Annotate changes the metadata of the record ref names (see resolve) as an
// says, in one transaction, and returns the record as stored. The change
// takes a new change sequence, so an incremental export sends the record
// again. It returns store.ErrNotFound (wrapped) for a missing conversation or
// record, and the *transcript.InputError of an unknown timing key.
func (s *Store) Annotate(ctx context.Context, conv, ref string, an *transcript.Annotation) ([]byte, error) {
	var out []byte
	err := s.inTx(ctx, func(tx conn) error {
		if err := mustLockTx(ctx, tx, conv); err != nil {
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
		was := rec.Metadata.Timing.Creation
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
		if rec.Metadata.Timing.Creation != was {
			// A record's docid follows its creation time (search's newest
			// first): it moves, and its index entry with it, while its row
			// still holds the time it had (the docids it is placed among
			// are those of the others).
			if err := moveDocID(ctx, tx, conv, &rec); err != nil {
				return fmt.Errorf("update record %s: %w", st.ID, err)
			}
		}
		out = transcript.AppendJSON(nil, &rec)
		if _, err := tx.ExecContext(ctx, `UPDATE records SET body = ?, seq = ?, created = ? WHERE conversation = ? AND id = ?`,
			string(out), seq, rec.Metadata.Timing.Creation, conv, st.ID); err != nil {
			return fmt.Errorf("update record %s: %w", st.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET next_seq = ?, updated = ?, shape = shape + 1 WHERE id = ?`,
			seq+1, s.nowMillis(), conv); err != nil {
			return fmt.Errorf("update conversation: %w", err)
		}
		if err := s.keepFigures(ctx, tx, conv, 0, rec.Metadata.Timing.Creation != was); err != nil {
			return err
		}
		s.log().Info("annotated record", "conversation", conv, "id", st.ID, "role", st.Role, "seq", seq,
			"timing", len(an.Timing), "aux", len(an.Aux), "unset_aux", len(an.UnsetAux))
		return nil
	})
	return out, err
}

// idList is ids as the JSON array the dialect's IDsIn reads: "[]" for none,
// never "null".
func idList(ids []string) string {
	if len(ids) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ids)
	return string(b)
}
