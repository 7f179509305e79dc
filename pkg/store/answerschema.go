package store

// This file holds the answer schemas stored per conversation (ask --schema).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ConversationSchema is the JSON Schema a conversation's answers must match
// (ask's "single schema" mode): every ask uses it unless the call gives its
// own schema or none.
type ConversationSchema struct {
	// Name is what the provider is told the schema is called.
	Name string
	// Body is the schema document as it was given.
	Body []byte
	// Updated is when it was set, in ms since the epoch.
	Updated int64
}

// SetSchema stores the schema of conversation conv, replacing any earlier
// one, and creates the conversation when it does not exist yet. Clearing the
// conversation deletes its schema.
func (s *Store) SetSchema(ctx context.Context, conv string, sc ConversationSchema) error {
	now := s.nowMillis()
	return s.inTx(ctx, func(tx *sql.Tx) error {
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
	err := s.inTx(ctx, func(tx *sql.Tx) error {
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
func (s *Store) Schema(ctx context.Context, conv string) (sc ConversationSchema, ok bool, err error) {
	var body string
	err = s.db.QueryRowContext(ctx, `SELECT name, body, updated FROM conversation_schemas WHERE conversation = ?`, conv).
		Scan(&sc.Name, &body, &sc.Updated)
	if errors.Is(err, sql.ErrNoRows) {
		return ConversationSchema{}, false, nil
	}
	if err != nil {
		return ConversationSchema{}, false, fmt.Errorf("read schema: %w", err)
	}
	sc.Body = []byte(body)
	return sc, true, nil
}
