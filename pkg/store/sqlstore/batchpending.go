package sqlstore

// The batch requests summarize --batch-out wrote and --batch-in has not
// applied yet (table batch_pending): what each asked about, so that the
// result file is all --batch-in needs. A row goes with its conversation
// (a trigger in SQLite, a cascade in PostgreSQL).

import (
	"context"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
)

// AddBatchRequests records reqs in one transaction, replacing rows of the
// same custom_id; a request whose conversation is gone is left out.
func (s *Store) AddBatchRequests(ctx context.Context, reqs []store.BatchRequest) error {
	if len(reqs) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx conn) error {
		for _, r := range reqs {
			if err := putBatchRequest(ctx, tx, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// putBatchRequest inserts or replaces r, if its conversation exists.
func putBatchRequest(ctx context.Context, tx conn, r store.BatchRequest) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO batch_pending (custom_id, conversation, read_seq, first_id, last_id,
		covered, summarizer, model, options, created)
		SELECT CAST(?1 AS TEXT), CAST(?2 AS TEXT), CAST(?3 AS BIGINT), CAST(?4 AS TEXT), CAST(?5 AS TEXT),
			CAST(?6 AS BIGINT), CAST(?7 AS TEXT), CAST(?8 AS TEXT), CAST(?9 AS TEXT), CAST(?10 AS BIGINT) WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ?2)
		ON CONFLICT (custom_id) DO UPDATE SET conversation = ?2, read_seq = ?3, first_id = ?4, last_id = ?5,
		covered = ?6, summarizer = ?7, model = ?8, options = ?9, created = ?10`,
		r.CustomID, r.Conversation, r.ReadSeq, r.FirstID, r.LastID, r.Covered, r.Summarizer, r.Model, string(r.Options), r.Created)
	if err != nil {
		return fmt.Errorf("record batch request %s: %w", r.CustomID, err)
	}
	return nil
}

const batchColumns = `custom_id, conversation, read_seq, first_id, last_id, covered, summarizer, model, options, created`

// batchDest is where a row of batchColumns scans to.
func batchDest(r *store.BatchRequest, options *string) []any {
	return []any{&r.CustomID, &r.Conversation, &r.ReadSeq, &r.FirstID, &r.LastID, &r.Covered, &r.Summarizer, &r.Model, options, &r.Created}
}

// BatchRequests calls fn for each pending request, oldest first.
func (s *Store) BatchRequests(ctx context.Context, fn func(store.BatchRequest) error) error {
	rows, err := s.conn().QueryContext(ctx, `SELECT `+batchColumns+` FROM batch_pending ORDER BY created, custom_id`)
	if err != nil {
		return fmt.Errorf("list batch requests: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r store.BatchRequest
		var options string
		if err := rows.Scan(batchDest(&r, &options)...); err != nil {
			return fmt.Errorf("list batch requests: %w", err)
		}
		r.Options = []byte(options)
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list batch requests: %w", err)
	}
	return nil
}

// DropBatchRequests deletes the requests ids names and those created
// before before (0: none by age), in one transaction.
func (s *Store) DropBatchRequests(ctx context.Context, before int64, ids ...string) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx conn) error {
		var err error
		n, err = dropBatchRequests(ctx, tx, before, ids)
		return err
	})
	return n, err
}

func dropBatchRequests(ctx context.Context, tx conn, before int64, ids []string) (int64, error) {
	var n int64
	if len(ids) > 0 {
		res, err := tx.ExecContext(ctx, `DELETE FROM batch_pending WHERE custom_id IN `+tx.d.IDsIn("?1"), idList(ids))
		if err != nil {
			return 0, fmt.Errorf("drop batch requests: %w", err)
		}
		k, _ := res.RowsAffected()
		n += k
	}
	if before > 0 {
		res, err := tx.ExecContext(ctx, `DELETE FROM batch_pending WHERE created < ?`, before)
		if err != nil {
			return 0, fmt.Errorf("drop old batch requests: %w", err)
		}
		k, _ := res.RowsAffected()
		n += k
	}
	return n, nil
}
