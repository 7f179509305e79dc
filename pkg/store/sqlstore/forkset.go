package sqlstore

// A fork inside the store as set operations (SQLite): one INSERT ... SELECT
// writes every record, its id numbered in SQL (transcript.IDRun), its body
// rewritten by ForkBody and its docid given by ForkDocID, functions the
// dialect registers on its connections; one UPDATE then remaps the
// summaries' summaryIds. No record passes through this process's
// transaction code, and the index catches up later, as after any write.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// SetForker is a Dialect whose connections carry the functions of a fork
// in SQL: convo_fork_body(body, id, conversation) (ForkBody),
// convo_fork_remap(body, map) (ForkRemap) and convo_fork_docid(run, n,
// created) (ForkDocID), or that is a StatementForker.
type SetForker interface {
	ForksInSQL() bool
}

func forksInSQL(d Dialect) bool {
	f, ok := d.(SetForker)
	return ok && f.ForksInSQL()
}

// errForkInGo: the set fork met what only the record-by-record one does
// (a millisecond whose docids spill into the next, a record it cannot
// write): the transaction is rolled back and the fork made again that way.
var errForkInGo = errors.New("fork: docids past what was read before the statement")

// ForkBody is the body of a forked record: body's record with id in conv,
// its old id under aux.forkedFrom, its summaryIds as they were (ForkRemap
// maps them once every copy has its id). A stored body is canonical (get
// prints it as it is), so it is spliced, not decoded
// (transcript.AppendForked); one the splice does not take is decoded.
func ForkBody(body []byte, id, conv string) (string, error) {
	if out, ok := transcript.AppendForked(make([]byte, 0, len(body)+64), body, id, conv); ok {
		// out is this call's own and never written again: the string
		// shares it rather than copy every body once more.
		return unsafe.String(unsafe.SliceData(out), len(out)), nil
	}
	r, err := parseStored(body)
	if err != nil {
		return "", err
	}
	c := transcript.ForkAs(r, id, conv, nil)
	if err := transcript.Validate(&c); err != nil {
		return "", fmt.Errorf("fork record %s: %w", r.ID, err)
	}
	return string(transcript.AppendJSON(nil, &c)), nil
}

// ForkRemap is body with its summaryIds mapped through m, a JSON object of
// old id to new id (null: none).
func ForkRemap(body []byte, m []byte) (string, error) {
	r, err := parseStored(body)
	if err != nil {
		return "", err
	}
	var ids map[string]string
	if len(m) > 0 {
		if err := json.Unmarshal(m, &ids); err != nil {
			return "", fmt.Errorf("fork record %s: the ids it covers: %w", r.ID, err)
		}
	}
	transcript.RemapSummaryIDs(&r, ids)
	if err := transcript.Validate(&r); err != nil {
		return "", fmt.Errorf("fork record %s: %w", r.ID, err)
	}
	return string(transcript.AppendJSON(nil, &r)), nil
}

// forkRun is one fork statement's docid allocator, primed before the
// statement (it cannot read the store from inside it).
type forkRun struct {
	docs docIDs
	d    Dialect
	next int64 // the row number the statement must ask for next
}

var (
	forkRuns   sync.Map // int64 -> *forkRun
	forkRunSeq atomic.Int64
)

// ForkDocID is the docid of the n-th record (from 1) of the fork statement
// run, created at created: the allocator's, as a record-by-record write
// would give it, which needs the rows in order.
func ForkDocID(run, n, created int64) (int64, error) {
	v, ok := forkRuns.Load(run)
	if !ok {
		return 0, fmt.Errorf("fork: no statement %d", run)
	}
	f := v.(*forkRun)
	if n != f.next {
		return 0, fmt.Errorf("fork: row %d came before row %d", n, f.next)
	}
	f.next++
	return f.docs.arg(context.Background(), conn{d: f.d}, created)
}

// forkSet is Fork's body as set operations, within tx; end is the place
// of the last record copied. It returns the records written.
func (s *Store) forkSet(ctx context.Context, tx conn, src, dst string, end store.Place, ids *transcript.IDs) (int64, error) {
	if sf, ok := tx.d.(StatementForker); ok {
		return s.forkStatement(ctx, tx, sf, src, dst, end, ids)
	}
	f := &forkRun{d: tx.d, next: 1}
	if err := f.docs.prime(ctx, tx, `conversation = ? AND (pos, sub) <= (?, ?)`, src, end.Pos, end.Sub); err != nil {
		return 0, err
	}
	run := forkRunSeq.Add(1)
	forkRuns.Store(run, f)
	defer forkRuns.Delete(run)

	// The rows to copy go to a temporary table first, in transcript
	// order, so that its rowids number them: an INSERT reading the table
	// it writes copies what it reads aside anyway, and a window function
	// numbering them would copy them once more.
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE fork_rows AS SELECT pos, sub, role, created, body
		FROM records WHERE conversation = ? AND (pos, sub) <= (?, ?) ORDER BY pos, sub`, src, end.Pos, end.Sub); err != nil {
		return 0, fmt.Errorf("fork %q to %q: %w", src, dst, err)
	}
	defer func() {
		// A rolled-back transaction takes the table with it.
		_, _ = tx.ExecContext(context.WithoutCancel(ctx), `DROP TABLE IF EXISTS temp.fork_rows`)
	}()
	idRun := ids.Run(s.nowMillis())
	col := tx.ix().docIDColumn()
	res, err := tx.ExecContext(ctx, `INSERT INTO records (`+col+`, conversation, id, pos, sub, role, created, seq, body)
		SELECT convo_fork_docid(?1, n, created), ?2, nid, pos, sub, role, created, n, convo_fork_body(body, nid, ?2)
		FROM (SELECT rowid AS n, pos, sub, role, created, body, `+idRun.SQL("rowid")+` AS nid
			FROM temp.fork_rows ORDER BY rowid)`, run, dst)
	if f.docs.unprimed {
		return 0, errForkInGo
	}
	if err != nil {
		// A record the fork cannot write (one over the size limit with
		// its forkedFrom) comes back from SQLite as text: the fork made
		// again record by record fails with the error's own type.
		return 0, fmt.Errorf("%w: %w", errForkInGo, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("fork %q to %q: %w", src, dst, err)
	}
	// The copies of what a summary covers sit at their originals' places.
	if _, err := tx.ExecContext(ctx, `UPDATE records SET body = convo_fork_remap(body,
			(SELECT json_group_object(s.id, d.id) FROM json_each(records.body, '$.metadata.summaryIds') e
				JOIN records s ON s.conversation = ?1 AND s.id = e.value
				JOIN records d ON d.conversation = ?2 AND d.pos = s.pos AND d.sub = s.sub))
		WHERE conversation = ?2 AND role IN ('system', 'summary') AND role = 'summary'
			AND json_array_length(body, '$.metadata.summaryIds') > 0`, src, dst); err != nil {
		return 0, fmt.Errorf("%w: the summaries: %w", errForkInGo, err)
	}
	if err := tx.ix().forked(ctx, tx, dst); err != nil {
		return 0, err
	}
	return n, nil
}
