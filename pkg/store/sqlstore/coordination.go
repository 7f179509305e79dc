package sqlstore

// Coordination between processes sharing the store: rate-limit slots and
// claims on conversations.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/convo-cli/convo/pkg/store"
)

// RateSlot reserves the next request slot of the limiter key, which allows
// one request every interval, and returns when the slot starts: now when
// the limiter is idle, later when earlier reservations hold the slots before
// it. Every process on the store shares the limiter: the reservation is one
// write transaction on the rate_limits table, so concurrent callers get
// distinct slots, interval apart. A caller that gives up after reserving
// leaves its slot unused, which errs on the side of the provider's quota.
func (s *Store) RateSlot(ctx context.Context, key string, interval time.Duration) (time.Time, error) {
	if interval <= 0 {
		return s.Now(), nil
	}
	var slot int64
	err := s.inTx(ctx, func(tx conn) error {
		now := s.Now().UnixMicro()
		// The row first, so that there is one to lock.
		if _, err := tx.ExecContext(ctx, `INSERT INTO rate_limits (key, next) VALUES (?, 0) ON CONFLICT (key) DO NOTHING`, key); err != nil {
			return fmt.Errorf("reserve rate limit %q: %w", key, err)
		}
		var next int64
		if err := tx.QueryRowContext(ctx, `SELECT next FROM rate_limits WHERE key = ?`+tx.forUpdate(), key).Scan(&next); err != nil {
			return fmt.Errorf("read rate limit %q: %w", key, err)
		}
		slot = max(now, next)
		step := max(interval.Microseconds(), 1)
		if _, err := tx.ExecContext(ctx, `UPDATE rate_limits SET next = ? WHERE key = ?`, slot+step, key); err != nil {
			return fmt.Errorf("reserve rate limit %q: %w", key, err)
		}
		return nil
	})
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMicro(slot), nil
}

// Claim takes conv for owner unless another process holds it. Where the
// dialect locks rows, the claim is a row lock held by a transaction of its
// own (SELECT ... FOR UPDATE SKIP LOCKED): a killed holder's connection
// closes and the server drops the lock at once. Elsewhere it is a lease row
// renewed every third of store.ClaimLease while held: one statement takes
// it, so two workers racing cannot both win.
func (s *Store) Claim(ctx context.Context, conv, owner string) (func(), bool, error) {
	if s.d.ForUpdate() != "" {
		return s.claimLock(ctx, conv)
	}
	ok, err := s.lease(ctx, conv, owner)
	if err != nil || !ok {
		return nil, ok, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(store.ClaimLease / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if _, err := s.lease(context.WithoutCancel(ctx), conv, owner); err != nil {
					s.log().Warn("claim not renewed", "conversation", conv, "error", err.Error())
				}
			}
		}
	}()
	release := func() {
		close(stop)
		<-done
		if err := s.inTx(context.WithoutCancel(ctx), func(tx conn) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM claims WHERE conversation = ? AND owner = ?`, conv, owner)
			return err
		}); err != nil {
			s.log().Warn("claim not released; it expires", "conversation", conv, "error", err.Error())
		}
	}
	return release, true, nil
}

// lease takes or renews owner's lease on conv unless another owner holds an
// unexpired one.
func (s *Store) lease(ctx context.Context, conv, owner string) (bool, error) {
	now := s.nowMillis()
	var n int64
	err := s.inTx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO claims (conversation, owner, expires) VALUES (?1, ?2, ?3)
			ON CONFLICT (conversation) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
			WHERE claims.owner = excluded.owner OR claims.expires <= ?4`, conv, owner, now+store.ClaimLease.Milliseconds(), now)
		if err != nil {
			return fmt.Errorf("claim %q: %w", conv, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// claimLock claims conv with a row lock held by a transaction on a
// connection of its own until release.
func (s *Store) claimLock(ctx context.Context, conv string) (func(), bool, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	q := conn{c, s.d}
	// The row first, so that there is one to lock; its owner and expiry are
	// unused here.
	if _, err := q.ExecContext(ctx, `INSERT INTO claims (conversation, owner, expires) VALUES (?, '', 0) ON CONFLICT DO NOTHING`, conv); err != nil {
		c.Close()
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		c.Close()
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	var one int
	err = conn{tx, s.d}.QueryRowContext(ctx, `SELECT 1 FROM claims WHERE conversation = ?`+s.d.ForUpdate()+` SKIP LOCKED`, conv).Scan(&one)
	if err != nil {
		tx.Rollback()
		c.Close()
		if errors.Is(err, sql.ErrNoRows) {
			return nil, false, nil // another worker holds it
		}
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	return func() { tx.Rollback(); c.Close() }, true, nil
}
