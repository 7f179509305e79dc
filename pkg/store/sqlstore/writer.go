package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/transcript"
)

// writer holds one write transaction on one conversation and its counters.
// New records wait in the inserter (the bulk path, inserter.go); a merge
// into a pending record changes it there.
type writer struct {
	inserter
	s        *Store
	pos, seq int64
	buf      []byte
	stmts    map[string]*sql.Stmt // prepared on first use, for this transaction
	queued   map[string]int       // id -> index in pending
	// added counts records inserted less records deleted; reshaped marks a
	// change other than an append or a merge into the last record (see
	// conversations.shape): both go to the conversation's row in finish.
	added    int64
	reshaped bool

	// newest is the newest creation time of the records inserted, for the
	// conversation's last activity (keepFigures).
	newest int64
	// fig is the view's token figure, followed by an append (startFigure).
	fig writerFigure
}

const (
	sqlAbsorb = `INSERT INTO absorbed (conversation, id, target) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`
	sqlLookup = `SELECT 1 FROM records WHERE conversation = ?1 AND id = ?2
		UNION ALL SELECT 1 FROM absorbed WHERE conversation = ?1 AND id = ?2 LIMIT 1`
)

func (s *Store) newWriter(ctx context.Context, tx conn, conv string) (*writer, error) {
	now := s.nowMillis()
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO conversations (id, created, updated) VALUES (?1, ?2, ?2) ON CONFLICT (id) DO NOTHING`,
		conv, now); err != nil {
		return nil, fmt.Errorf("create conversation: %w", err)
	}
	w := &writer{inserter: newInserter(tx, conv), s: s}
	if err := tx.QueryRowContext(ctx, `SELECT next_pos, next_seq FROM conversations WHERE id = ?`+tx.forUpdate(), conv).
		Scan(&w.pos, &w.seq); err != nil {
		return nil, fmt.Errorf("read conversation: %w", err)
	}
	return w, nil
}

// stmt returns q prepared in the writer's transaction, preparing it on first
// use: a summary write needs none of an append's statements.
func (w *writer) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	// It must see the rows of a batch inserted behind the transaction.
	if err := w.tx.settle(); err != nil {
		return nil, err
	}
	if st := w.stmts[q]; st != nil {
		return st, nil
	}
	st, err := w.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if w.stmts == nil {
		w.stmts = map[string]*sql.Stmt{}
	}
	w.stmts[q] = st
	return st, nil
}

func (w *writer) exec(ctx context.Context, q string, args ...any) error {
	st, err := w.stmt(ctx, q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

func (w *writer) close() {
	for _, st := range w.stmts {
		st.Close()
	}
	w.inserter.close()
}

// openRecord returns the record the next same-role append merges into: the
// last non-system record, unless that is a summary; a summary that stands
// for a provider's compaction is returned too, for the Appender to know
// that no placeholder goes after it (nothing merges into it).
func (w *writer) openRecord(ctx context.Context) (*transcript.Record, error) {
	var body []byte
	var role string
	err := w.tx.QueryRowContext(ctx, `SELECT role, body FROM records
		WHERE conversation = ? AND role != 'system' ORDER BY pos DESC, sub DESC LIMIT 1`, w.conv).Scan(&role, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read last record: %w", err)
	}
	if role == string(transcript.RoleSummary) && !bytes.Contains(body, []byte(`"provider_data"`)) {
		return nil, nil
	}
	var r transcript.Record
	if err := transcript.DecodeStored(body, &r); err != nil {
		return nil, fmt.Errorf("stored record is corrupt: %w", err)
	}
	if r.Message.Role == transcript.RoleSummary && !r.IsCompaction() {
		return nil, nil
	}
	return &r, nil
}

func (w *writer) known(ctx context.Context, id string) (bool, error) {
	if _, ok := w.queued[id]; ok {
		return true, nil
	}
	var one int
	st, err := w.stmt(ctx, sqlLookup)
	if err != nil {
		return false, err
	}
	err = st.QueryRowContext(ctx, w.conv, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up id %s: %w", id, err)
	}
	return true, nil
}

func (w *writer) insert(ctx context.Context, r *transcript.Record) error {
	w.buf = transcript.AppendJSON(w.buf[:0], r)
	if w.queued == nil {
		w.queued = map[string]int{}
	}
	p := pendingRow{id: r.ID, role: string(r.Message.Role), body: string(w.buf),
		pos: w.pos, created: r.Metadata.Timing.Creation, seq: w.seq}
	if err := w.place(ctx, &p, func() (string, error) { return w.terms.of(w.s.d, w.conv, r), nil }); err != nil {
		return err
	}
	w.queued[r.ID] = len(w.pending)
	full := w.queue(p)
	w.figureInsert(r, w.buf)
	w.newest = max(w.newest, p.created)
	w.pos++
	w.seq++
	w.added++
	if full {
		return w.flush(ctx)
	}
	return nil
}

// flush inserts the pending records.
func (w *writer) flush(ctx context.Context) error {
	if err := w.send(ctx); err != nil {
		return err
	}
	clear(w.queued)
	return nil
}

func (w *writer) update(ctx context.Context, r *transcript.Record) error {
	ix := w.tx.ix()
	// terms makes r's entry (no error: r is decoded already).
	terms := func() (string, error) { return w.terms.of(w.s.d, w.conv, r), nil }
	w.buf = transcript.AppendJSON(w.buf[:0], r)
	w.figureUpdate(r, w.buf)
	if i, ok := w.queued[r.ID]; ok {
		// Not sent yet: it goes in once, as merged, with the merge's sequence.
		p := &w.pending[i]
		p.body, p.seq = string(w.buf), w.seq
		// Where the row holds the terms; the index table's catch-up reads
		// the body.
		p.terms, _ = ix.rowTerms(terms)
		w.seq++
		return nil
	}
	text, _ := ix.rowTerms(terms)
	// An indexed record's entry goes, while its old body is there to say
	// what it was (an index table's: it takes the new text when it
	// catches up; the terms in the row are written with the body).
	if err := ix.unindex(ctx, w.tx, `conversation = ? AND id = ?`, w.conv, r.ID); err != nil {
		return fmt.Errorf("update record %s: %w", r.ID, err)
	}
	if err := w.exec(ctx, ix.updateBody(), append(ix.termsArg([]any{string(w.buf), w.seq}, text), w.conv, r.ID)...); err != nil {
		return fmt.Errorf("update record %s: %w", r.ID, err)
	}
	w.seq++
	return nil
}

// finish sends the pending records and stores the counters; call it last
// in the transaction.
func (w *writer) finish(ctx context.Context) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	reshaped := 0
	if w.reshaped {
		reshaped = 1
	}
	_, err := w.tx.ExecContext(ctx, `UPDATE conversations SET next_pos = ?, next_seq = ?, updated = ?,
		record_count = record_count + ?, shape = shape + ? WHERE id = ?`,
		w.pos, w.seq, w.s.nowMillis(), w.added, reshaped, w.conv)
	if err != nil {
		return fmt.Errorf("update conversation: %w", err)
	}
	if err := w.storeFigure(ctx, w.seq); err != nil {
		return err
	}
	return w.s.keepFigures(ctx, w.tx, w.conv, w.newest, w.reshaped)
}
