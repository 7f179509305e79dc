package sqlstore

// Fork: a new conversation from a stored one, up to a record.

import (
	"context"
	"errors"
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
	res, err := s.fork(ctx, src, dst, opt, ids, forksInSQL(s.d))
	if errors.Is(err, errForkInGo) {
		res, err = s.fork(ctx, src, dst, opt, ids, false)
	}
	return res, err
}

// fork is Fork, as set operations (inSQL) or record by record.
func (s *Store) fork(ctx context.Context, src, dst string, opt store.ForkOptions, ids *transcript.IDs, inSQL bool) (store.ForkResult, error) {
	var res store.ForkResult
	if src == dst {
		return res, fmt.Errorf("fork %q onto itself", src)
	}
	err := s.inTx(ctx, func(tx conn) error {
		res = store.ForkResult{}
		if err := mustLockTx(ctx, tx, src); err != nil {
			return err
		}
		end := store.Place{Pos: 1 << 62}
		if opt.At != "" {
			st, err := resolveCut(ctx, tx, src, opt.At)
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
		var seq, maxPos int64
		if inSQL {
			if seq, err = s.forkSet(ctx, tx, src, dst, end, ids); err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(pos), 0) FROM records WHERE conversation = ?`, dst).Scan(&maxPos); err != nil {
				return fmt.Errorf("fork %q to %q: %w", src, dst, err)
			}
		} else if seq, maxPos, err = s.forkRows(ctx, tx, src, dst, end, ids); err != nil {
			return err
		}
		res.Records = int(seq)
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, created, updated, next_pos, next_seq, record_count)
			VALUES (?, ?, ?, ?, ?, ?)`, dst, now, now, maxPos+1, seq+1, seq); err != nil {
			return fmt.Errorf("create conversation %q: %w", dst, err)
		}
		if err := s.forkFigures(ctx, tx, src, dst, end); err != nil {
			return err
		}
		s.log().Info("forked conversation", "from", src, "to", dst, "at", opt.At, "records", res.Records, "replaced", res.Replaced)
		return nil
	})
	return res, err
}

// forkRows is Fork's body record by record, in pages: it returns the
// records written and the last one's place.
func (s *Store) forkRows(ctx context.Context, tx conn, src, dst string, end store.Place, ids *transcript.IDs) (seq, maxPos int64, err error) {
	fk := transcript.NewForker(dst, ids, s.nowMillis)
	ins := newInserter(tx, dst)
	defer ins.close()
	after := store.Place{Pos: -1}
	for {
		page, err := readPage(ctx, tx, src, after, end)
		if err != nil {
			return 0, 0, err
		}
		for _, st := range page {
			rec, err := parseStored(st.Body)
			if err != nil {
				return 0, 0, fmt.Errorf("record %s: %w", st.ID, err)
			}
			var newIDs map[string]string
			if len(rec.Metadata.SummaryIDs) > 0 {
				// What it covers may be among the rows not yet sent.
				if err := ins.send(ctx); err != nil {
					return 0, 0, err
				}
				if newIDs, err = forkedIDs(ctx, tx, src, dst, rec.Metadata.SummaryIDs); err != nil {
					return 0, 0, err
				}
			}
			c := fk.Fork(rec, newIDs)
			if err := transcript.Validate(&c); err != nil {
				return 0, 0, fmt.Errorf("fork record %s: %w", st.ID, err)
			}
			seq++
			p := pendingRow{id: c.ID, pos: st.Pos, sub: st.Sub, role: st.Role,
				created: c.Metadata.Timing.Creation, seq: seq, body: string(transcript.AppendJSON(nil, &c))}
			if err := ins.place(ctx, &p, func() (string, error) { return ins.terms.of(tx.d, dst, &c), nil }); err != nil {
				return 0, 0, err
			}
			if ins.queue(p) {
				if err := ins.send(ctx); err != nil {
					return 0, 0, err
				}
			}
			maxPos = max(maxPos, st.Pos)
			after = store.Place{Pos: st.Pos, Sub: st.Sub}
		}
		if len(page) < forkPage {
			if err := ins.send(ctx); err != nil {
				return 0, 0, err
			}
			return seq, maxPos, nil
		}
	}
}

// forkedIDs maps the ids a summary of src covers to the ids their copies
// got in dst: a copy sits at its original's place, and a summary comes
// after what it covers, so those copies are already in. Asking per summary
// keeps a fork's memory to its largest summary, not its length.
func forkedIDs(ctx context.Context, tx conn, src, dst string, covered []string) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT s.id, d.id FROM records s
		JOIN records d ON d.conversation = ?2 AND d.pos = s.pos AND d.sub = s.sub
		WHERE s.conversation = ?1 AND s.id IN `+tx.d.IDsIn("?3"), src, dst, idList(covered))
	if err != nil {
		return nil, fmt.Errorf("map covered ids: %w", err)
	}
	defer rows.Close()
	m := make(map[string]string, len(covered))
	for rows.Next() {
		var old, id string
		if err := rows.Scan(&old, &id); err != nil {
			return nil, fmt.Errorf("map covered ids: %w", err)
		}
		m[old] = id
	}
	return m, rows.Err()
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

// forkFigures keeps dst's figures. A fork of all of src holds src's view
// (the same messages at the same places, and a count reads nothing else)
// and src's newest record, so src's up-to-date token figures are dst's,
// the last record's id mapped to its copy's, and so is its last activity:
// copied, they spare keepFigures reading every record again.
func (s *Store) forkFigures(ctx context.Context, tx conn, src, dst string, end store.Place) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO view_tokens (conversation, tokenizer, created, shape, seq, tokens, last_id, last_tokens)
		SELECT ?2, v.tokenizer, dc.created, dc.shape, dc.next_seq, v.tokens, coalesce(d.id, ''), v.last_tokens
		FROM view_tokens v
		JOIN conversations c ON c.id = v.conversation AND c.created = v.created AND c.shape = v.shape AND c.next_seq = v.seq
		JOIN conversations dc ON dc.id = ?2
		LEFT JOIN records r ON r.conversation = ?1 AND r.id = v.last_id
		LEFT JOIN records d ON d.conversation = ?2 AND d.pos = r.pos AND d.sub = r.sub
		WHERE v.conversation = ?1 AND (v.last_id = '' OR d.id IS NOT NULL)
			AND NOT EXISTS (SELECT 1 FROM records WHERE conversation = ?1 AND (pos, sub) > (?3, ?4))
		ON CONFLICT (conversation, tokenizer) DO UPDATE SET created = excluded.created, shape = excluded.shape,
			seq = excluded.seq, tokens = excluded.tokens, last_id = excluded.last_id, last_tokens = excluded.last_tokens`,
		src, dst, end.Pos, end.Sub); err != nil {
		return fmt.Errorf("keep the view's tokens of %q: %w", dst, err)
	}
	// Its last activity too: the newest of the same records.
	res, err := tx.ExecContext(ctx, `UPDATE conversations SET last_created = (SELECT last_created FROM conversations WHERE id = ?1)
		WHERE id = ?2 AND record_count > 0 AND NOT EXISTS (SELECT 1 FROM records WHERE conversation = ?1 AND (pos, sub) > (?3, ?4))`,
		src, dst, end.Pos, end.Sub)
	if err != nil {
		return fmt.Errorf("keep the last activity of %q: %w", dst, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("keep the last activity of %q: %w", dst, err)
	}
	return s.keepFigures(ctx, tx, dst, 0, n == 0)
}
