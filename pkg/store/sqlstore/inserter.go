package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// inserter is the one bulk path into records: append's writer, Load
// (copy) and a fork record by record queue rows here, and they go in the
// dialect's InsertBatch at a time, one statement each, a full batch's
// statement prepared once per transaction. A round trip per record is what
// a networked database cannot afford; SQLite, in process, is fast with a
// prepared statement in a large transaction.
type inserter struct {
	tx      conn
	conv    string
	batch   int // records per INSERT
	full    *sql.Stmt
	pending []pendingRow
	args    []any
	docs    docIDs
	terms   termer
	// added are the docids of the records queued, told the index at each
	// send (SearchIndex.added).
	added []int64
	rows  []CopyRow // a RecordCopier's batch
	// The buffers of the batch whose INSERT runs behind (sendBehind).
	spareArgs  []any
	spareAdded []int64
}

// pendingRow is a record queued but not yet sent, with its index entry
// (terms) where the row holds it.
type pendingRow struct {
	id, role, body, terms         string
	pos, sub, created, seq, docid int64
}

func newInserter(tx conn, conv string) inserter {
	batch := tx.d.InsertBatch()
	if rc, _, ok := tx.copier(); ok {
		batch = rc.CopyBatch()
	}
	return inserter{tx: tx, conv: conv, batch: max(batch, 1)}
}

// insertValues is the INSERT of n records, bare placeholders: SQLite looks
// a numbered one's name up in a list per bound value.
func insertValues(ix SearchIndex, n int) string {
	var q strings.Builder
	q.WriteString(`INSERT INTO records (conversation, id, pos, sub, role, created, seq, body` + ix.insertColumns() + `) VALUES `)
	row := "(?, ?, ?, ?, ?, ?, ?, ?" + ix.insertValues() + ")"
	for i := range n {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString(row)
	}
	return q.String()
}

// place gives p its docid and, where the row holds the index entry,
// that entry (terms', called only then). p is not queued yet (queue does).
func (b *inserter) place(ctx context.Context, p *pendingRow, terms func() (string, error)) error {
	docid, err := b.docs.arg(ctx, b.tx, p.created)
	if err != nil {
		return err
	}
	p.docid = docid
	if p.terms, err = b.tx.ix().rowTerms(terms); err != nil {
		return fmt.Errorf("record %s: %w", p.id, err)
	}
	b.added = append(b.added, docid)
	return nil
}

// queue adds p (placed) and reports whether a batch is full: the caller
// sends it (send), after anything of its own that must see the rows queued.
func (b *inserter) queue(p pendingRow) (full bool) {
	b.pending = append(b.pending, p)
	return len(b.pending) >= b.batch
}

// storedTerms is place's terms for a stored body.
func (b *inserter) storedTerms(body string) func() (string, error) {
	return func() (string, error) { return b.terms.stored(b.tx.d, b.conv, []byte(body)) }
}

// send inserts the queued rows.
func (b *inserter) send(ctx context.Context) error {
	if len(b.pending) == 0 {
		return nil
	}
	var err error
	if rc, c, ok := b.tx.copier(); ok {
		err = b.copyPending(ctx, rc, c)
	} else if b.bindPending(); len(b.pending) == b.batch {
		if b.full == nil {
			if b.full, err = b.tx.PrepareContext(ctx, insertValues(b.tx.ix(), b.batch)); err != nil {
				return fmt.Errorf("prepare: %w", err)
			}
		}
		if o, ok := b.tx.overlapped(); ok {
			return b.sendBehind(ctx, o)
		}
		_, err = b.full.ExecContext(ctx, b.args...)
	} else {
		// The last, shorter batch runs once.
		_, err = b.tx.ExecContext(ctx, insertValues(b.tx.ix(), len(b.pending)), b.args...)
	}
	if err != nil {
		return fmt.Errorf("insert records %s to %s: %w", b.pending[0].id, b.pending[len(b.pending)-1].id, err)
	}
	b.pending = b.pending[:0]
	// At once: a merge into one of them later in the transaction must
	// find it unindexed.
	if err := b.tx.ix().added(ctx, b.tx, b.added...); err != nil {
		return err
	}
	b.added = b.added[:0]
	return nil
}

// sendBehind runs the full batch's INSERT (bound in b.args) behind the
// transaction, and the index told of its rows after it: b goes on with
// the other buffers meanwhile.
func (b *inserter) sendBehind(ctx context.Context, o *overlapTx) error {
	stmt, args, added := b.full, b.args, b.added
	first, last := b.pending[0].id, b.pending[len(b.pending)-1].id
	err := o.behind(func(tx conn) error {
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("insert records %s to %s: %w", first, last, err)
		}
		return tx.ix().added(ctx, tx, added...)
	}, b.tx.d)
	if err != nil {
		return err
	}
	b.args, b.spareArgs = b.spareArgs, args
	b.added, b.spareAdded = b.spareAdded[:0], added
	b.pending = b.pending[:0]
	return nil
}

// bindPending makes the arguments of the queued rows' INSERT.
func (b *inserter) bindPending() {
	b.args = b.args[:0]
	for _, p := range b.pending {
		b.args = append(b.args, b.conv, p.id, p.pos, p.sub, p.role, p.created, p.seq, p.body)
		b.args = b.tx.ix().termsArg(append(b.args, p.docid), p.terms)
	}
}

// close releases the prepared statement.
func (b *inserter) close() {
	if b.full != nil {
		b.full.Close()
		b.full = nil
	}
}
