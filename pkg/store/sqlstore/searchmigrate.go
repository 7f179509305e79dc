package sqlstore

// The Go steps of the search migrations: indexing what an older convo
// stored, and indexing every record again into a rebuilt index table.

import (
	"context"
	"database/sql"
	"fmt"
	"math"
)

// BackfillSearch is the search migration's Go step, run in the migration's
// transaction: it gives every record its docid and terms, oldest first, so
// that docids of one millisecond keep the records' order.
func BackfillSearch(ctx context.Context, tx *sql.Tx, d Dialect) error {
	c := conn{tx, d}
	ix := d.SearchIndex()
	col := ix.docIDColumn()
	type ref struct {
		conv, id string
		created  int64
	}
	var refs []ref
	rows, err := c.QueryContext(ctx, `SELECT conversation, id, created FROM records ORDER BY created, conversation, pos, sub`)
	if err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	for rows.Next() {
		var r ref
		if err := rows.Scan(&r.conv, &r.id, &r.created); err != nil {
			rows.Close()
			return fmt.Errorf("index records: %w", err)
		}
		refs = append(refs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index records: %w", err)
	}
	ids := docIDs{noCursor: true}
	var t termer
	set := `UPDATE records SET ` + col + ` = ` + ix.docIDValue() + ix.termsSet() + ` WHERE conversation = ? AND id = ?`
	var es []entry
	for _, r := range refs {
		var body []byte
		if err := c.QueryRowContext(ctx, `SELECT body FROM records WHERE conversation = ? AND id = ?`, r.conv, r.id).Scan(&body); err != nil {
			return fmt.Errorf("index record %s: %w", r.id, err)
		}
		text, err := t.stored(d, r.conv, body)
		if err != nil {
			return fmt.Errorf("index record %s: %w", r.id, err)
		}
		doc, err := ids.arg(ctx, c, r.created)
		if err != nil {
			return err
		}
		args := ix.termsArg([]any{doc}, text)
		if _, err := c.ExecContext(ctx, set, append(args, r.conv, r.id)...); err != nil {
			return fmt.Errorf("index record %s: %w", r.id, err)
		}
		if es = append(es, entry{docid: doc, text: text}); len(es) == 256 {
			if err := ix.add(ctx, c, es); err != nil {
				return err
			}
			es = es[:0]
		}
	}
	if err := ix.add(ctx, c, es); err != nil {
		return err
	}
	return nil
}

// ReindexSearch writes the index entry of every stored record again, in
// pages of record bodies (bounded memory) and held entries written a few
// MiB at a time: the Go step of a migration that rebuilt the index table.
// Only for a dialect whose index is a table of its own.
func ReindexSearch(ctx context.Context, tx *sql.Tx, d Dialect) error {
	c := conn{tx, d}
	ix := d.SearchIndex()
	col := ix.docIDColumn()
	var t termer
	var es []entry
	held := 0
	after := int64(math.MinInt64)
	for {
		rows, err := c.QueryContext(ctx, `SELECT `+col+`, conversation, body FROM records WHERE `+col+` > ? ORDER BY `+col+` LIMIT 4096`, after)
		if err != nil {
			return fmt.Errorf("index records: %w", err)
		}
		n := 0
		for rows.Next() {
			var conv string
			var body []byte
			if err := rows.Scan(&after, &conv, &body); err != nil {
				rows.Close()
				return fmt.Errorf("index records: %w", err)
			}
			text, err := t.stored(d, conv, body)
			if err != nil {
				rows.Close()
				return fmt.Errorf("index record at %d: %w", after, err)
			}
			es = append(es, entry{docid: after, text: text})
			held += len(text)
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("index records: %w", err)
		}
		if n == 0 || held > maxHeldEntries {
			if err := ix.add(ctx, c, es); err != nil {
				return err
			}
			es, held = es[:0], 0
		}
		if n == 0 {
			return nil
		}
	}
}
