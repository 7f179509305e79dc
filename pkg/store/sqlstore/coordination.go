package sqlstore

// Coordination between processes sharing the store: rate-limit slots and
// claims on conversations.

import (
	"context"
	"database/sql"
	"database/sql/driver"
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
	ctx, cancel := context.WithTimeout(ctx, s.claimTimeout())
	defer cancel()
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
// dialect has session locks, the claim is one, on the one connection that
// holds all of this process's claims (claims.go): a killed holder's
// connection closes and the server drops its claims at once. Elsewhere it
// is a lease row renewed every third of store.ClaimLease while held: one
// statement takes it, so two workers racing cannot both win.
func (s *Store) Claim(ctx context.Context, conv, owner string, since int64) (func(bool), bool, error) {
	if sl, ok := s.d.(sessionLocker); ok {
		return s.claimSession(ctx, sl, conv, since)
	}
	if s.d.ForUpdate() != "" {
		return s.claimLock(ctx, conv, since)
	}
	ok, err := s.lease(ctx, conv, owner, since)
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
				if _, err := s.lease(context.WithoutCancel(ctx), conv, owner, 0); err != nil {
					s.log().Warn("claim not renewed", "conversation", conv, "error", err.Error())
				}
			}
		}
	}()
	release := func(finished bool) {
		close(stop)
		<-done
		q, args := `UPDATE claims SET owner = '', expires = 0 WHERE conversation = ? AND owner = ?`, []any{conv, owner}
		if finished {
			q, args = `UPDATE claims SET owner = '', expires = 0, finished = ? WHERE conversation = ? AND owner = ?`, []any{s.nowMillis(), conv, owner}
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.claimTimeout())
		defer cancel()
		if err := s.inTx(rctx, func(tx conn) error {
			_, err := tx.ExecContext(rctx, q, args...)
			return err
		}); err != nil {
			s.log().Warn("claim not released; it expires", "conversation", conv, "error", err.Error())
		}
	}
	return release, true, nil
}

// lease takes or renews owner's lease on conv unless another owner holds an
// unexpired one, or its last holder finished it at or after since.
func (s *Store) lease(ctx context.Context, conv, owner string, since int64) (bool, error) {
	now := s.nowMillis()
	var n int64
	ctx, cancel := context.WithTimeout(ctx, s.claimTimeout())
	defer cancel()
	err := s.inTx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO claims (conversation, owner, expires) VALUES (?1, ?2, ?3)
			ON CONFLICT (conversation) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
			WHERE (claims.owner = excluded.owner OR claims.expires <= ?4) AND (?5 = 0 OR claims.finished < ?5)`,
			conv, owner, now+store.ClaimLease.Milliseconds(), now, since)
		if err != nil {
			return fmt.Errorf("claim %q: %w", conv, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// claimLock claims conv with a row lock held by a transaction on a
// connection of its own until release. The transaction is begun and ended
// by statements on that connection, so that each statement, these
// included, runs under ClaimTimeout while the lock outlives them all.
func (s *Store) claimLock(ctx context.Context, conv string, since int64) (func(bool), bool, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	q := conn{c, s.d}
	exec := func(ctx context.Context, query string, args ...any) error {
		ctx, cancel := context.WithTimeout(ctx, s.claimTimeout())
		defer cancel()
		_, err := q.ExecContext(ctx, query, args...)
		return err
	}
	// end ends the transaction and gives the connection back, or, when
	// that fails (it timed out), closes it: a connection is never pooled
	// inside a transaction.
	end := func(stmt string) error {
		err := exec(context.WithoutCancel(ctx), stmt)
		if err != nil {
			c.Raw(func(any) error { return driver.ErrBadConn })
		}
		c.Close()
		return err
	}
	fail := func(err error) (func(bool), bool, error) {
		end(`ROLLBACK`)
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	// The row first, so that there is one to lock; its owner and expiry are
	// unused here.
	if err := exec(ctx, `INSERT INTO claims (conversation, owner, expires) VALUES (?, '', 0) ON CONFLICT DO NOTHING`, conv); err != nil {
		c.Close()
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	if err := exec(ctx, `BEGIN`); err != nil {
		return fail(err)
	}
	var finished int64
	qctx, cancel := context.WithTimeout(ctx, s.claimTimeout())
	err = q.QueryRowContext(qctx, `SELECT finished FROM claims WHERE conversation = ?`+s.d.ForUpdate()+` SKIP LOCKED`, conv).Scan(&finished)
	cancel()
	if err == nil && since > 0 && finished >= since {
		err = sql.ErrNoRows // another worker did it since
	}
	if errors.Is(err, sql.ErrNoRows) {
		end(`ROLLBACK`)
		return nil, false, nil // another worker holds it, or did it
	}
	if err != nil {
		return fail(err)
	}
	release := func(done bool) {
		stmt := `ROLLBACK`
		if done && exec(context.WithoutCancel(ctx), `UPDATE claims SET finished = ? WHERE conversation = ?`, s.nowMillis(), conv) == nil {
			stmt = `COMMIT`
		}
		if err := end(stmt); err != nil {
			s.log().Warn("claim not released cleanly; the server drops it with the connection", "conversation", conv, "error", err.Error())
		}
	}
	return release, true, nil
}
