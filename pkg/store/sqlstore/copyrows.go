package sqlstore

// A dialect's own bulk form for new records (PostgreSQL's COPY FROM): the
// inserter hands it each batch instead of a multi-row INSERT.

import (
	"context"
	"database/sql"
)

// RecordCopier is a Dialect that writes new records in a bulk form of its
// own. Its write transactions are opened on a connection of their own
// (runCopyTx), so that it can reach the driver's connection under them.
type RecordCopier interface {
	// CopyRecords writes rows of conv on c, inside the transaction open
	// on it. A row's Slot is what an INSERT binds the docid value's
	// placeholder to (SearchIndex.docID); the copier gives the row the
	// docid that value would, and writes Terms where the row holds them
	// (NewTermsInRow).
	CopyRecords(ctx context.Context, c *sql.Conn, conv string, rows []CopyRow) error
	// CopyBatch is how many records one CopyRecords call carries.
	CopyBatch() int
}

// CopyRow is one new record for CopyRecords.
type CopyRow struct {
	ID, Role, Body, Terms        string
	Pos, Sub, Created, Seq, Slot int64
}

// copyTx is a write transaction with the connection it runs on.
type copyTx struct {
	*sql.Tx
	c *sql.Conn
}

// runCopyTx is runTxOn's write transaction for a RecordCopier.
func (s *Store) runCopyTx(ctx context.Context, db *sql.DB, fn func(conn) error) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return &beginError{err}
	}
	defer c.Close()
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return &beginError{err}
	}
	if err := fn(conn{copyTx{tx, c}, s.d}); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return &commitError{err}
	}
	return nil
}

// copier is the dialect's RecordCopier and the connection of tx, when tx
// is a transaction it can copy in.
func (tx conn) copier() (RecordCopier, *sql.Conn, bool) {
	rc, ok := tx.d.(RecordCopier)
	ct, in := tx.q.(copyTx)
	if !ok || !in {
		return nil, nil, false
	}
	return rc, ct.c, true
}

// copyPending sends the inserter's queued rows through the copier.
func (b *inserter) copyPending(ctx context.Context, rc RecordCopier, c *sql.Conn) error {
	b.rows = b.rows[:0]
	for _, p := range b.pending {
		b.rows = append(b.rows, CopyRow{ID: p.id, Role: p.role, Body: p.body, Terms: p.terms,
			Pos: p.pos, Sub: p.sub, Created: p.created, Seq: p.seq, Slot: p.docid})
	}
	return rc.CopyRecords(ctx, c, b.conv, b.rows)
}
