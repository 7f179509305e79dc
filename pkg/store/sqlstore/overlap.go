package sqlstore

// A write transaction whose bulk inserts run behind the caller: the
// inserter hands a full batch's INSERT to a goroutine and goes on making
// the next batch (decoding, checking, encoding and counting records is
// half of a bulk append's CPU; SQLite's insert the other half), so a bulk
// write uses two cores where the plain prepared-insert loop uses one.
// Every other statement of the transaction, its commit and its rollback
// wait for the insert in flight first, so each sees the rows queued before
// it, in order; a statement prepared before and kept (writer.stmt) goes
// through conn.settle first.

import (
	"context"
	"database/sql"
)

// overlapTx is a transaction whose statements wait for the insert in
// flight, if any; an insert that failed fails every statement after it,
// and the transaction (see settle).
type overlapTx struct {
	tx   *sql.Tx
	done chan struct{} // the insert in flight, nil when none
	err  error         // the first insert that failed
}

// settle waits for the insert in flight and reports the first that failed.
func (o *overlapTx) settle() error {
	if o.done != nil {
		<-o.done
		o.done = nil
	}
	return o.err
}

// behind runs job on another goroutine, after the insert in flight; job
// gets the transaction itself (not o: it must not wait for itself).
func (o *overlapTx) behind(job func(conn) error, d Dialect) error {
	if err := o.settle(); err != nil {
		return err
	}
	done := make(chan struct{})
	o.done = done
	go func() {
		defer close(done)
		o.err = job(conn{o.tx, d})
	}()
	return nil
}

func (o *overlapTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := o.settle(); err != nil {
		return nil, err
	}
	return o.tx.ExecContext(ctx, query, args...)
}

func (o *overlapTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := o.settle(); err != nil {
		return nil, err
	}
	return o.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext: a failed insert is reported by the commit (settle),
// which it fails.
func (o *overlapTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	o.settle()
	return o.tx.QueryRowContext(ctx, query, args...)
}

func (o *overlapTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if err := o.settle(); err != nil {
		return nil, err
	}
	return o.tx.PrepareContext(ctx, query)
}

// settle waits for the insert running behind c, if any. A statement
// prepared earlier (*sql.Stmt) runs past overlapTx, so whoever keeps one
// calls this before each use.
func (c conn) settle() error {
	if o, ok := c.overlapped(); ok {
		return o.settle()
	}
	return nil
}

// overlapped is tx's overlapTx, when it has one.
func (c conn) overlapped() (*overlapTx, bool) {
	o, ok := c.q.(*overlapTx)
	return o, ok
}
