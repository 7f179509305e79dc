package store

import (
	"context"
	"database/sql"
	"errors"
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
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		now := s.Now().UnixMicro()
		var next int64
		err := tx.QueryRowContext(ctx, `SELECT next FROM rate_limits WHERE key = ?`, key).Scan(&next)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read rate limit %q: %w", key, err)
		}
		slot = max(now, next)
		step := max(interval.Microseconds(), 1)
		if _, err := tx.ExecContext(ctx, `INSERT INTO rate_limits (key, next) VALUES (?1, ?2)
			ON CONFLICT (key) DO UPDATE SET next = ?2`, key, slot+step); err != nil {
			return fmt.Errorf("reserve rate limit %q: %w", key, err)
		}
		return nil
	})
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMicro(slot), nil
}
