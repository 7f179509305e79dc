package sqlstore

// Dump and Load: a conversation moved between stores exactly as stored
// (convo copy), its counters, change sequences, export cursors and pending
// batch requests included, so that an incremental export from the new store
// sends nothing new and a batch result applies there too.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/convo-cli/convo/pkg/store"
)

// Dump streams everything stored for conv from one snapshot.
func (s *Store) Dump(ctx context.Context, conv string, fn func(store.Dumped) error) error {
	return s.inSnapshot(ctx, func(tx conn) error {
		c := store.DumpedConversation{ID: conv}
		err := tx.QueryRowContext(ctx, `SELECT created, updated, next_pos, next_seq FROM conversations WHERE id = ?`, conv).
			Scan(&c.Created, &c.Updated, &c.NextPos, &c.NextSeq)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("conversation %q: %w", conv, store.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("dump %q: %w", conv, err)
		}
		if err := fn(store.Dumped{Conversation: &c}); err != nil {
			return err
		}
		var r store.DumpedRecord
		var body sql.RawBytes
		if err := each(ctx, tx, `SELECT id, pos, sub, seq, role, created, body FROM records WHERE conversation = ? ORDER BY pos, sub`, conv,
			[]any{&r.ID, &r.Pos, &r.Sub, &r.Seq, &r.Role, &r.Created, &body},
			func() error { r.Body = body; return fn(store.Dumped{Record: &r}) }); err != nil {
			return err
		}
		var a store.DumpedAbsorbed
		if err := each(ctx, tx, `SELECT id, target FROM absorbed WHERE conversation = ? ORDER BY id`, conv,
			[]any{&a.ID, &a.Target}, func() error { return fn(store.Dumped{Absorbed: &a}) }); err != nil {
			return err
		}
		var cur store.DumpedCursor
		if err := each(ctx, tx, `SELECT sink, seq, held, updated FROM export_cursors WHERE conversation = ? ORDER BY sink`, conv,
			[]any{&cur.Sink, &cur.Seq, &cur.Held, &cur.Updated}, func() error { return fn(store.Dumped{Cursor: &cur}) }); err != nil {
			return err
		}
		var ic store.ImportCursor
		if err := each(ctx, tx, `SELECT source, tool, size, mtime, entries, last_entry, head, resume, updated FROM import_cursors
			WHERE conversation = ? ORDER BY source`, conv,
			[]any{&ic.Source, &ic.Tool, &ic.Size, &ic.MTime, &ic.Entries, &ic.LastEntry, &ic.Head, &ic.Resume, &ic.Updated},
			func() error { ic.Conversation = conv; return fn(store.Dumped{Import: &ic}) }); err != nil {
			return err
		}
		var del store.DumpedDeleted
		if err := each(ctx, tx, `SELECT id, deleted FROM import_deleted WHERE conversation = ? ORDER BY id`, conv,
			[]any{&del.ID, &del.Deleted}, func() error { return fn(store.Dumped{Deleted: &del}) }); err != nil {
			return err
		}
		var sc store.ConversationSchema
		if err := each(ctx, tx, `SELECT name, body, updated FROM conversation_schemas WHERE conversation = ?`, conv,
			[]any{&sc.Name, &sc.Body, &sc.Updated}, func() error { return fn(store.Dumped{Schema: &sc}) }); err != nil {
			return err
		}
		var b store.BatchRequest
		var options string
		if err := each(ctx, tx, `SELECT `+batchColumns+` FROM batch_pending WHERE conversation = ? ORDER BY created, custom_id`, conv,
			batchDest(&b, &options), func() error { b.Options = []byte(options); return fn(store.Dumped{Batch: &b}) }); err != nil {
			return err
		}
		// Only a figure of the conversation as it is now.
		var f store.DumpedFigure
		return each(ctx, tx, `SELECT v.tokenizer, v.tokens, v.last_id, v.last_tokens FROM view_tokens v
			JOIN conversations c ON c.id = v.conversation AND c.created = v.created AND c.shape = v.shape AND c.next_seq = v.seq
			WHERE v.conversation = ? ORDER BY v.tokenizer`, conv,
			[]any{&f.Tokenizer, &f.Tokens, &f.LastID, &f.LastTokens}, func() error { return fn(store.Dumped{Figure: &f}) })
	})
}

// each runs q with conv, scanning each row into dst and calling fn.
func each(ctx context.Context, tx conn, q, conv string, dst []any, fn func() error) error {
	rows, err := tx.QueryContext(ctx, q, conv)
	if err != nil {
		return fmt.Errorf("dump %q: %w", conv, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("dump %q: %w", conv, err)
		}
		if err := fn(); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("dump %q: %w", conv, err)
	}
	return nil
}

// Load stores one conversation as Dump gave it, in one transaction: the
// conversation's piece first, then the rest, until next returns io.EOF.
func (s *Store) Load(ctx context.Context, replace bool, next func() (store.Dumped, error)) error {
	first, err := next()
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	c := first.Conversation
	if c == nil {
		return errors.New("load: the conversation must come first")
	}
	var records int
	var newest int64
	err = s.inTxOnce(ctx, func(tx conn) error {
		records, newest = 0, 0
		exists, err := lockTx(ctx, tx, c.ID)
		if err != nil {
			return err
		}
		if exists {
			if !replace {
				return fmt.Errorf("conversation %q %w in %s; add --force to replace it", c.ID, store.ErrExists, s.Describe())
			}
			if _, err := deleteConversation(ctx, tx, c.ID); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM conversation_schemas WHERE conversation = ?`, c.ID); err != nil {
				return fmt.Errorf("delete schema of %q: %w", c.ID, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, created, updated, next_pos, next_seq) VALUES (?, ?, ?, ?, ?)`,
			c.ID, c.Created, c.Updated, c.NextPos, c.NextSeq); err != nil {
			return fmt.Errorf("create conversation %q: %w", c.ID, err)
		}
		// Records go in through append's bulk path (inserter.go); any
		// other piece sends the batch first, so that the pieces land in
		// the order they came.
		ins := newInserter(tx, c.ID)
		defer ins.close()
		// Per-batch statements run without the cancel, as append's do: the
		// loop checks ctx itself (modernc.org/sqlite watches a cancellable
		// context with a goroutine per statement).
		rowCtx := context.WithoutCancel(ctx)
		flush := func() error { return ins.send(rowCtx) }
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			d, err := next()
			if errors.Is(err, io.EOF) {
				if err := flush(); err != nil {
					return fmt.Errorf("load %q: %w", c.ID, err)
				}
				if _, err := tx.ExecContext(ctx, `UPDATE conversations SET record_count = ? WHERE id = ?`, records, c.ID); err != nil {
					return fmt.Errorf("load %q: %w", c.ID, err)
				}
				// The newest record came by: no need to read them all again.
				return s.keepFigures(ctx, tx, c.ID, newest, records == 0 || newest <= 0)
			}
			if err != nil {
				return err
			}
			switch {
			case d.Record != nil:
				r := d.Record
				p := pendingRow{id: r.ID, pos: r.Pos, sub: r.Sub, role: r.Role, created: r.Created, seq: r.Seq, body: string(r.Body)}
				if err = ins.place(rowCtx, &p, ins.storedTerms(p.body)); err != nil {
					break
				}
				records++
				newest = max(newest, r.Created)
				if ins.queue(p) {
					err = flush()
				}
			default:
				err = loadPiece(ctx, tx, c.ID, d, flush)
			}
			if err != nil {
				return fmt.Errorf("load %q: %w", c.ID, err)
			}
		}
	})
	if err == nil {
		s.log().Info("loaded conversation", "conversation", c.ID, "records", records, "replaced", replace)
	}
	return err
}

// loadPiece stores a dumped piece other than a record of conv, the
// records queued before it sent first (flush).
func loadPiece(ctx context.Context, tx conn, conv string, d store.Dumped, flush func() error) error {
	var err error
	switch {
	case d.Absorbed != nil:
		if err = flush(); err != nil {
			break
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO absorbed (conversation, id, target) VALUES (?, ?, ?)`,
			conv, d.Absorbed.ID, d.Absorbed.Target)
	case d.Cursor != nil:
		k := d.Cursor
		if err = flush(); err != nil {
			break
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO export_cursors (conversation, sink, seq, held, updated) VALUES (?, ?, ?, ?, ?)`,
			conv, k.Sink, k.Seq, k.Held, k.Updated)
	case d.Schema != nil:
		sc := d.Schema
		if err = flush(); err != nil {
			break
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO conversation_schemas (conversation, name, body, updated) VALUES (?, ?, ?, ?)`,
			conv, sc.Name, string(sc.Body), sc.Updated)
	case d.Batch != nil:
		if err = flush(); err != nil {
			break
		}
		b := *d.Batch
		b.Conversation = conv
		err = putBatchRequest(ctx, tx, b)
	case d.Import != nil:
		if err = flush(); err != nil {
			break
		}
		err = insertImportCursor(ctx, tx, conv, d.Import)
	case d.Deleted != nil:
		if err = flush(); err != nil {
			break
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO import_deleted (id, conversation, deleted) VALUES (?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET conversation = excluded.conversation, deleted = excluded.deleted`,
			d.Deleted.ID, conv, d.Deleted.Deleted)
	case d.Figure != nil:
		if err = flush(); err != nil {
			break
		}
		err = loadFigure(ctx, tx, conv, d.Figure)
	default:
		return errors.New("a piece with nothing in it")
	}
	return err
}

// loadFigure stores a dumped token figure for conv, as of conv's row now
// (its counters are the dumped ones; its shape starts again).
func loadFigure(ctx context.Context, tx conn, conv string, f *store.DumpedFigure) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO view_tokens (conversation, tokenizer, created, shape, seq, tokens, last_id, last_tokens)
		SELECT id, ?2, created, shape, next_seq, ?3, ?4, ?5 FROM conversations WHERE id = ?1
		ON CONFLICT (conversation, tokenizer) DO UPDATE SET created = excluded.created, shape = excluded.shape,
			seq = excluded.seq, tokens = excluded.tokens, last_id = excluded.last_id, last_tokens = excluded.last_tokens`,
		conv, f.Tokenizer, f.Tokens, f.LastID, f.LastTokens)
	return err
}
