package sqlstore

// Figures: the token count of a conversation's LLM view, kept per tokenizer
// and brought up to date from the records changed since it was made.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// viewFigure is a row of view_tokens.
type viewFigure struct {
	created, shape, seq int64 // the conversation's, when counted
	tokens              int64
	lastID              string // the last non-system record then, the one a merge may change
	lastTokens          int64
}

// cacheWriteTimeout bounds the wait to store a counted figure: a list must
// not queue behind a long write for the sake of a cache.
const cacheWriteTimeout = 250 * time.Millisecond

// ViewTokens returns the tokens of conv's LLM view, counting only what
// changed since the figure stored for key was made (all of the view when
// there is none, or when a change other than an append or merge came
// since: conversations.shape moved). The figure is then stored again, best
// effort: a store that cannot be written to still answers.
func (s *Store) ViewTokens(ctx context.Context, conv, key string, count func(role string, body []byte) (int, error)) (int, error) {
	var cur, old viewFigure
	var haveOld bool
	err := s.inSnapshot(ctx, func(tx conn) error {
		var err error
		cur, old, haveOld, err = s.figureIn(ctx, tx, conv, key, count)
		return err
	})
	if err != nil {
		return 0, err
	}
	if !haveOld || cur != old {
		s.storeFigure(ctx, conv, key, cur)
	}
	return int(cur.tokens), nil
}

// figureIn counts conv's view tokens in tx from the figure stored for key:
// only what changed since it was made, or all of the view. It returns the
// figure now (cur), the one stored (old) and whether old was usable.
func (s *Store) figureIn(ctx context.Context, tx conn, conv, key string, count func(role string, body []byte) (int, error)) (cur, old viewFigure, haveOld bool, err error) {
	err = tx.QueryRowContext(ctx, `SELECT created, shape, next_seq FROM conversations WHERE id = ?`, conv).
		Scan(&cur.created, &cur.shape, &cur.seq)
	if errors.Is(err, sql.ErrNoRows) {
		return cur, old, false, fmt.Errorf("conversation %q: %w", conv, store.ErrNotFound)
	}
	if err != nil {
		return cur, old, false, fmt.Errorf("read conversation %q: %w", conv, err)
	}
	err = tx.QueryRowContext(ctx, `SELECT created, shape, seq, tokens, last_id, last_tokens FROM view_tokens
		WHERE conversation = ? AND tokenizer = ?`, conv, key).
		Scan(&old.created, &old.shape, &old.seq, &old.tokens, &old.lastID, &old.lastTokens)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return cur, old, false, fmt.Errorf("read the view's tokens of %q: %w", conv, err)
	}
	haveOld = err == nil && old.created == cur.created && old.shape == cur.shape && old.seq <= cur.seq
	if haveOld && old.seq == cur.seq {
		return old, old, true, nil
	}
	if haveOld {
		ok, err := s.countChanged(ctx, tx, conv, old, &cur, count)
		if err != nil || ok {
			return cur, old, true, err
		}
	}
	return cur, old, haveOld, s.countView(ctx, tx, conv, &cur, count)
}

// figureCounter is the tokenizer every write keeps conversations' view
// figures by.
type figureCounter struct {
	key   string
	count func(role string, body []byte) (int, error)
	// record, when set, counts a record in hand as count counts its
	// stored body: a write counts what it writes without decoding it
	// again (SetFigureRecords).
	record func(r *transcript.Record) (int, error)
}

// SetFigures makes every write keep, in its own transaction, the token
// figure of each conversation it changes by the tokenizer key (count
// counts one stored record), so that a list by that tokenizer reads every
// figure and counts nothing. Without it a list counts what changed since
// the figure it finds, as ViewTokens does.
func (s *Store) SetFigures(key string, count func(role string, body []byte) (int, error)) {
	if count == nil {
		s.figures = nil
		return
	}
	s.figures = &figureCounter{key: key, count: count}
}

// SetFigureRecords gives the tokenizer SetFigures set a counter of a
// record in hand, which must count what its count counts of the record's
// stored body: a write then counts the records it writes without decoding
// each body again (a tenth of a bulk append's CPU was that decoding).
func (s *Store) SetFigureRecords(record func(r *transcript.Record) (int, error)) {
	if s.figures != nil {
		s.figures.record = record
	}
}

// countWritten counts r, stored as body, as the figures' count would.
func (f *figureCounter) countWritten(r *transcript.Record, body []byte) (int, error) {
	if f.record != nil {
		return f.record(r)
	}
	return f.count(string(r.Message.Role), body)
}

// keepFigures brings conv's figures up to date in tx, the transaction that
// changed it, last: its last activity (the newest record's creation time:
// newest, the newest created of what tx added, when recount is false;
// with recount, records went or changed times, and it is read again) and,
// under SetFigures, its view's tokens. A conversation tx deleted has none
// to keep.
func (s *Store) keepFigures(ctx context.Context, tx conn, conv string, newest int64, recount bool) error {
	var err error
	if recount {
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET last_created =
			coalesce((SELECT max(created) FROM records WHERE conversation = ?1), created) WHERE id = ?1`, conv)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET last_created = ?1 WHERE id = ?2 AND last_created < ?1`, newest, conv)
	}
	if err != nil {
		return fmt.Errorf("keep the last activity of %q: %w", conv, err)
	}
	f := s.figures
	if f == nil {
		return nil
	}
	var countErr error
	count := func(role string, body []byte) (int, error) {
		n, err := f.count(role, body)
		if err != nil {
			countErr = err
		}
		return n, err
	}
	cur, old, haveOld, err := s.figureIn(ctx, tx, conv, f.key, count)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil && countErr != nil {
		// A record the tokenizer cannot count fails no write: the figure
		// stays behind, and list counts it (ViewTokens) and says why.
		s.log().Warn("view tokens not kept", "conversation", conv, "error", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	if haveOld && cur == old {
		return nil
	}
	if _, err := tx.ExecContext(ctx, sqlStoreFigure, conv, f.key, cur.created, cur.shape, cur.seq, cur.tokens, cur.lastID, cur.lastTokens); err != nil {
		return fmt.Errorf("keep the view's tokens of %q: %w", conv, err)
	}
	return nil
}

// sqlStoreFigure stores a figure unless the conversation changed shape or
// was recreated since it was read, or a newer one is there.
const sqlStoreFigure = `INSERT INTO view_tokens (conversation, tokenizer, created, shape, seq, tokens, last_id, last_tokens)
	SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ?1 AND created = ?3 AND shape = ?4)
	ON CONFLICT (conversation, tokenizer) DO UPDATE SET created = excluded.created, shape = excluded.shape,
		seq = excluded.seq, tokens = excluded.tokens, last_id = excluded.last_id, last_tokens = excluded.last_tokens
	WHERE view_tokens.created <> excluded.created OR view_tokens.shape <> excluded.shape OR view_tokens.seq < excluded.seq`

// Figures calls fn for every conversation with the figures list shows,
// newest activity first (ties by id), in one read of the conversations and
// their stored token figures for tokenizer key: a figure that is not up to
// date (written without SetFigures, by another tokenizer) is TokensKnown
// false, for ViewTokens to count.
func (s *Store) Figures(ctx context.Context, key string, fn func(store.ConversationFigures) error) error {
	rows, err := s.conn().QueryContext(ctx, `SELECT c.id, c.created, c.updated, c.record_count, c.last_created,
		coalesce(v.tokens, 0), CASE WHEN v.conversation IS NULL THEN 0 ELSE 1 END
		FROM conversations c LEFT JOIN view_tokens v ON v.conversation = c.id AND v.tokenizer = ?1
			AND v.created = c.created AND v.shape = c.shape AND v.seq = c.next_seq
		ORDER BY c.last_created DESC, c.id`, key)
	if err != nil {
		return fmt.Errorf("list conversations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c store.ConversationFigures
		var known int
		if err := rows.Scan(&c.ID, &c.Created, &c.Updated, &c.Records, &c.LastActivity, &c.Tokens, &known); err != nil {
			return fmt.Errorf("list conversations: %w", err)
		}
		c.TokensKnown = known == 1
		if err := fn(c); err != nil {
			return err
		}
	}
	return rows.Err()
}

// countChanged brings old up to date into cur from the records changed
// since it was made. It reports false, leaving cur to a full count, when a
// summary is among them (a change that should have moved shape).
func (s *Store) countChanged(ctx context.Context, tx conn, conv string, old viewFigure, cur *viewFigure, count func(string, []byte) (int, error)) (bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, role, body FROM records WHERE conversation = ? AND seq >= ? ORDER BY pos, sub`, conv, old.seq)
	if err != nil {
		return false, fmt.Errorf("read the changes of %q: %w", conv, err)
	}
	defer rows.Close()
	cur.tokens, cur.lastID, cur.lastTokens = old.tokens, old.lastID, old.lastTokens
	var id, role string
	var body sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &role, &body); err != nil {
			return false, fmt.Errorf("read the changes of %q: %w", conv, err)
		}
		if role == "summary" {
			return false, nil
		}
		if id == old.lastID && old.lastID != "" {
			cur.tokens -= old.lastTokens // merged into since: its new version counts below
		}
		n, err := count(role, body)
		if err != nil {
			return false, fmt.Errorf("record %s: %w", id, err)
		}
		cur.tokens += int64(n)
		if role != "system" {
			cur.lastID, cur.lastTokens = id, int64(n)
		}
	}
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("read the changes of %q: %w", conv, err)
	}
	return true, nil
}

// countView counts the whole view: the latest summary and what follows.
func (s *Store) countView(ctx context.Context, tx conn, conv string, cur *viewFigure, count func(string, []byte) (int, error)) error {
	pos, sub, ok, err := latest(ctx, tx, conv, "summary")
	if err != nil {
		return err
	}
	if !ok {
		pos, sub = -1, 0
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, role, body FROM records WHERE conversation = ?1
		AND (pos > ?2 OR (pos = ?2 AND sub >= ?3)) ORDER BY pos, sub`, conv, pos, sub)
	if err != nil {
		return fmt.Errorf("read %q: %w", conv, err)
	}
	defer rows.Close()
	cur.tokens, cur.lastID, cur.lastTokens = 0, "", 0
	var id, role string
	var body sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &role, &body); err != nil {
			return fmt.Errorf("read %q: %w", conv, err)
		}
		n, err := count(role, body)
		if err != nil {
			return fmt.Errorf("record %s: %w", id, err)
		}
		cur.tokens += int64(n)
		if role != "system" {
			cur.lastID, cur.lastTokens = id, int64(n)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %q: %w", conv, err)
	}
	return nil
}

// storeFigure keeps f for the next count, unless the conversation was
// reshaped, cleared or recreated since it was read (then f is stale and
// another count makes its own), or a newer figure is already stored.
func (s *Store) storeFigure(ctx context.Context, conv, key string, f viewFigure) {
	if s.readOnly {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, cacheWriteTimeout)
	defer cancel()
	db := s.db
	if s.cache != nil {
		db = s.cache
	}
	err := s.runTxOn(ctx, db, nil, func(tx conn) error {
		_, err := tx.ExecContext(ctx, sqlStoreFigure, conv, key, f.created, f.shape, f.seq, f.tokens, f.lastID, f.lastTokens)
		return err
	})
	if err != nil {
		s.log().Debug("view tokens not stored", "conversation", conv, "error", err.Error())
	}
}
