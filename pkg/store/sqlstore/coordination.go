package sqlstore

// Coordination between processes sharing the store: rate-limit slots and
// claims on conversations.

import (
	"context"
	"fmt"
	"time"
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

// Claim takes conv for owner until ttl from now unless another owner holds
// an unexpired claim: one statement, so two workers racing for the same
// conversation cannot both win, on any backend. A killed worker's claims
// expire and others take them.
func (s *Store) Claim(ctx context.Context, conv, owner string, ttl time.Duration) (bool, error) {
	now := s.nowMillis()
	var n int64
	err := s.inTx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO claims (conversation, owner, expires) VALUES (?1, ?2, ?3)
			ON CONFLICT (conversation) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
			WHERE claims.owner = excluded.owner OR claims.expires <= ?4`, conv, owner, now+ttl.Milliseconds(), now)
		if err != nil {
			return fmt.Errorf("claim %q: %w", conv, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// Release gives up owner's claim on conv; a claim another owner took over
// after ours expired stays.
func (s *Store) Release(ctx context.Context, conv, owner string) error {
	return s.inTx(ctx, func(tx conn) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM claims WHERE conversation = ? AND owner = ?`, conv, owner); err != nil {
			return fmt.Errorf("release %q: %w", conv, err)
		}
		return nil
	})
}
