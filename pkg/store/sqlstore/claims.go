package sqlstore

// Claims as session locks (PostgreSQL's advisory locks), all held by one
// connection, so that a runner's connections stay under the pool's cap
// whatever its -j; and what a run does with its claims when it ends.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// sessionLocker is a dialect whose sessions hold locks of their own, taken
// without waiting and dropped by a statement or with the connection; the
// statements take the key as their one parameter.
type sessionLocker interface{ SessionLocks() (try, unlock string) }

// claimConn is the connection holding this process's session-lock claims,
// while it holds any.
type claimConn struct {
	mu   sync.Mutex
	c    *sql.Conn
	held int
	// gen counts the connections dropped: a claim taken on an earlier one
	// went with it.
	gen int
}

// drop closes the connection for good (never back to the pool: it may
// hold locks, or be broken), and with it every claim it held.
func (cc *claimConn) drop() {
	if cc.c == nil {
		return
	}
	cc.c.Raw(func(any) error { return driver.ErrBadConn })
	cc.c.Close()
	cc.c, cc.held = nil, 0
	cc.gen++
}

// close drops the connection, claims and all, as the store closes (the
// pool does not close a connection in use).
func (cc *claimConn) close() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.drop()
}

// idle gives the connection back to the pool once it holds no claim.
func (cc *claimConn) idle() {
	if cc.c != nil && cc.held == 0 {
		cc.c.Close()
		cc.c = nil
	}
}

// claimSession claims conv with a session lock on the claims connection.
func (s *Store) claimSession(ctx context.Context, sl sessionLocker, conv string, since int64) (func(bool), bool, error) {
	try, unlock := sl.SessionLocks()
	cc := &s.claims
	cc.mu.Lock()
	defer cc.mu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, s.claimTimeout())
	defer cancel()
	if cc.c == nil {
		c, err := s.db.Conn(sctx)
		if err != nil {
			return nil, false, fmt.Errorf("claim %q: %w", conv, err)
		}
		cc.c = c
	}
	q := conn{cc.c, s.d}
	var got bool
	if err := q.QueryRowContext(sctx, try, conv).Scan(&got); err != nil {
		cc.drop()
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	if !got {
		cc.idle()
		return nil, false, nil // another runner holds it
	}
	var finished int64
	err := q.QueryRowContext(sctx, `SELECT finished FROM claims WHERE conversation = ?`, conv).Scan(&finished)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	if err == nil && since > 0 && finished >= since {
		// Another runner did it since this run began.
		if _, err := q.ExecContext(sctx, unlock, conv); err != nil {
			cc.drop()
		} else {
			cc.idle()
		}
		return nil, false, nil
	}
	if err != nil {
		cc.drop()
		return nil, false, fmt.Errorf("claim %q: %w", conv, err)
	}
	cc.held++
	gen := cc.gen
	release := func(done bool) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.claimTimeout())
		defer cancel()
		if done {
			// Before the lock goes, so that whoever takes it next sees it.
			if err := s.inTx(rctx, func(tx conn) error {
				_, err := tx.ExecContext(rctx, `INSERT INTO claims (conversation, owner, expires, finished) VALUES (?1, '', 0, ?2)
					ON CONFLICT (conversation) DO UPDATE SET finished = excluded.finished`, conv, s.nowMillis())
				return err
			}); err != nil {
				s.log().Warn("claim's work not recorded as finished", "conversation", conv, "error", err.Error())
			}
		}
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if cc.gen != gen {
			return // the connection was lost, and the lock with it
		}
		if _, err := (conn{cc.c, s.d}).ExecContext(rctx, unlock, conv); err != nil {
			s.log().Warn("claim not released; the server drops it with the connection", "conversation", conv, "error", err.Error())
			cc.drop()
			return
		}
		cc.held--
		cc.idle()
	}
	return release, true, nil
}

// ReleaseClaims gives up every claim owner holds, for a run that ends
// without its workers (convo exiting at a second signal). Session locks
// need nothing: the server drops them with the process's connections.
func (s *Store) ReleaseClaims(ctx context.Context, owner string) error {
	if _, ok := s.d.(sessionLocker); ok {
		return nil
	}
	return s.inTx(ctx, func(tx conn) error {
		_, err := tx.ExecContext(ctx, `UPDATE claims SET owner = '', expires = 0 WHERE owner = ?`, owner)
		return err
	})
}

// HeldUntil returns when the last of the live claims on convs lapses
// unless renewed: the latest lease expiry among them. Zero when none is
// held as a lease, or claims are session locks, which last as long as
// their holder's connection, however long that is.
func (s *Store) HeldUntil(ctx context.Context, convs []string) (time.Time, error) {
	if _, ok := s.d.(sessionLocker); ok || len(convs) == 0 {
		return time.Time{}, nil
	}
	ids, err := json.Marshal(convs)
	if err != nil {
		return time.Time{}, err
	}
	var until int64
	err = s.conn().QueryRowContext(ctx, `SELECT coalesce(max(expires), 0) FROM claims
		WHERE conversation IN `+s.d.IDsIn("?1")+` AND owner <> '' AND expires > ?2`, string(ids), s.nowMillis()).Scan(&until)
	if err != nil || until == 0 {
		return time.Time{}, err
	}
	return time.UnixMilli(until), nil
}
