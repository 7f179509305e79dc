package sqlstore

// This file holds the answer schemas stored per conversation (ask --schema).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
)

// SetSchema stores the schema of conversation conv, replacing any earlier
// one, and creates the conversation when it does not exist yet. Clearing the
// conversation deletes its schema.
func (s *Store) SetSchema(ctx context.Context, conv string, sc store.ConversationSchema) error {
	now := s.nowMillis()
	return s.inTx(ctx, func(tx conn) error {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO conversations (id, created, updated) VALUES (?1, ?2, ?2) ON CONFLICT (id) DO NOTHING`,
			conv, now); err != nil {
			return fmt.Errorf("create conversation: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversation_schemas (conversation, name, body, updated)
			VALUES (?1, ?2, ?3, ?4) ON CONFLICT (conversation) DO UPDATE SET name = ?2, body = ?3, updated = ?4`,
			conv, sc.Name, string(sc.Body), now); err != nil {
			return fmt.Errorf("store schema: %w", err)
		}
		return nil
	})
}

// DeleteSchema removes the schema of conversation conv and reports whether
// it had one.
func (s *Store) DeleteSchema(ctx context.Context, conv string) (bool, error) {
	var n int64
	err := s.inTx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM conversation_schemas WHERE conversation = ?`, conv)
		if err != nil {
			return fmt.Errorf("delete schema: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n > 0, err
}

// Schema returns the schema of conversation conv; ok is false when it has
// none (or does not exist).
func (s *Store) Schema(ctx context.Context, conv string) (sc store.ConversationSchema, ok bool, err error) {
	var body string
	err = s.conn().QueryRowContext(ctx, `SELECT name, body, updated FROM conversation_schemas WHERE conversation = ?`, conv).
		Scan(&sc.Name, &body, &sc.Updated)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ConversationSchema{}, false, nil
	}
	if err != nil {
		return store.ConversationSchema{}, false, fmt.Errorf("read schema: %w", err)
	}
	sc.Body = []byte(body)
	return sc, true, nil
}
