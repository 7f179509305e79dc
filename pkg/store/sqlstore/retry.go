package sqlstore

// A database out of reach for a moment (PostgreSQL restarting, its
// connections all taken): transactions try again with a backoff instead of
// failing at once.

import (
	"context"
	"errors"

	"github.com/convo-cli/convo/pkg/store"
)

// transienter is a dialect that tells a failure to reach its database
// (PostgreSQL's); SQLite's has none to tell.
type transienter interface{ Transient(error) bool }

// Transient reports whether err is a failure to reach the database that
// may pass (a restart, too many clients), after which the same work may be
// tried again; never where the dialect tells none (SQLite).
func (s *Store) Transient(err error) bool {
	t, ok := s.d.(transienter)
	return ok && t.Transient(err)
}

// transient is Transient less a commit that failed, which may have stored
// the change: a transaction runs again only when it surely did not.
func (s *Store) transient(err error) bool {
	var c *commitError
	return !errors.As(err, &c) && s.Transient(err)
}

// transientBegin is transient for a transaction that could not begin:
// nothing of it ran.
func (s *Store) transientBegin(err error) bool {
	var b *beginError
	return errors.As(err, &b) && s.Transient(err)
}

// retryTransient runs fn until it succeeds or fails otherwise than
// retryable accepts, with s.Retry's backoff.
func (s *Store) retryTransient(ctx context.Context, retryable func(error) bool, fn func() error) error {
	b := s.Retry
	if b.Attempts == 0 {
		b = store.DefaultBackoff
	}
	return b.Do(ctx, retryable, func(attempt int, err error) {
		s.log().Warn("store out of reach; trying again", "store", s.Describe(), "attempt", attempt, "error", err.Error())
	}, fn)
}

// beginError is a transaction that could not begin.
type beginError struct{ err error }

func (e *beginError) Error() string { return "begin: " + e.err.Error() }
func (e *beginError) Unwrap() error { return e.err }
