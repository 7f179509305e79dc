package sqlstore

// Fork: a new conversation from a stored one, up to a record.

import (
	"context"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// forkPage bounds the records a fork holds in memory at once.
const forkPage = 256

// Fork copies the records of src up to and including opt.At into a new
// conversation dst, in one transaction: each record gets a new id and keeps
// its old one under aux.forkedFrom; summaries have their summaryIds
// remapped. Records keep their places, so dst reads as a prefix of src.
// It returns store.ErrNotFound (wrapped) when src or opt.At does not exist, and
// ErrExists when dst does and opt.Force is unset.
func (s *Store) Fork(ctx context.Context, src, dst string, opt store.ForkOptions, ids *transcript.IDs) (store.ForkResult, error) {
	var res store.ForkResult
	if src == dst {
		return res, fmt.Errorf("fork %q onto itself", src)
	}
	err := s.inTx(ctx, func(tx conn) error {
		if err := mustLockTx(ctx, tx, src); err != nil {
			return err
		}
		end := store.Place{Pos: 1 << 62}
		if opt.At != "" {
			st, err := resolve(ctx, tx, src, opt.At)
			if err != nil {
				return err
			}
			end = store.Place{Pos: st.Pos, Sub: st.Sub}
		}
		exists, err := lockTx(ctx, tx, dst)
		if err != nil {
			return err
		}
		if exists {
			if !opt.Force {
				return fmt.Errorf("conversation %q %w; add --force to replace it", dst, store.ErrExists)
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
		after := store.Place{Pos: -1}
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
				after = store.Place{Pos: st.Pos, Sub: st.Sub}
			}
			if len(page) < forkPage {
				break
			}
		}
		res.Records = int(seq)
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, created, updated, next_pos, next_seq, record_count)
			VALUES (?, ?, ?, ?, ?, ?)`, dst, now, now, maxPos+1, seq+1, seq); err != nil {
			return fmt.Errorf("create conversation %q: %w", dst, err)
		}
		s.log().Info("forked conversation", "from", src, "to", dst, "at", opt.At, "records", res.Records, "replaced", res.Replaced)
		return nil
	})
	return res, err
}

// readPage reads up to forkPage records of conv placed after after and at
// or before end, in transcript order.
func readPage(ctx context.Context, q conn, conv string, after, end store.Place) ([]stored, error) {
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
