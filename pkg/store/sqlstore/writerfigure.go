package sqlstore

// The view's token figure an append keeps as it writes: counted from the
// records in hand, not read back from the store once they are in (which
// was a quarter of a bulk append's CPU).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/transcript"
)

// writerFigure follows the figure keepFigures would count. on: it was up
// to date when the write began (or the conversation had never held a
// record), and every change since is one it follows (an insert, a merge
// into the last record); anything else (a summary, a count that fails)
// leaves the figure to keepFigures.
type writerFigure struct {
	on                 bool
	created, shape     int64
	tokens, lastTokens int64
	lastID             string
}

// startFigure reads the figure the write begins from.
func (w *writer) startFigure(ctx context.Context) error {
	f := w.s.figures
	if f == nil {
		return nil
	}
	var next int64
	if err := w.tx.QueryRowContext(ctx, `SELECT created, shape, next_seq FROM conversations WHERE id = ?`, w.conv).
		Scan(&w.fig.created, &w.fig.shape, &next); err != nil {
		return fmt.Errorf("read conversation: %w", err)
	}
	if next == 1 { // no record ever: the view is empty
		w.fig.on = true
		return nil
	}
	var created, shape, seq int64
	err := w.tx.QueryRowContext(ctx, `SELECT created, shape, seq, tokens, last_id, last_tokens FROM view_tokens
		WHERE conversation = ? AND tokenizer = ?`, w.conv, f.key).
		Scan(&created, &shape, &seq, &w.fig.tokens, &w.fig.lastID, &w.fig.lastTokens)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the view's tokens of %q: %w", w.conv, err)
	}
	w.fig.on = created == w.fig.created && shape == w.fig.shape && seq == next
	return nil
}

// figureInsert counts a record inserted after every other, whose stored
// body is body.
func (w *writer) figureInsert(r *transcript.Record, body []byte) {
	if !w.fig.on {
		return
	}
	if r.Message.Role == transcript.RoleSummary {
		w.fig.on = false // the view starts again there: keepFigures counts it
		return
	}
	n, err := w.s.figures.countWritten(r, body)
	if err != nil {
		w.fig.on = false
		return
	}
	w.fig.tokens += int64(n)
	if r.Message.Role != transcript.RoleSystem {
		w.fig.lastID, w.fig.lastTokens = r.ID, int64(n)
	}
}

// figureUpdate counts a merge into r, stored now as body: only one into
// the last non-system record is followed.
func (w *writer) figureUpdate(r *transcript.Record, body []byte) {
	if !w.fig.on {
		return
	}
	n, err := w.s.figures.countWritten(r, body)
	if err != nil || r.ID != w.fig.lastID || w.fig.lastID == "" {
		w.fig.on = false
		return
	}
	w.fig.tokens += int64(n) - w.fig.lastTokens
	w.fig.lastTokens = int64(n)
}

// storeFigure stores the figure followed, as of the conversation after
// the write (its next change sequence next); keepFigures then finds it up
// to date.
func (w *writer) storeFigure(ctx context.Context, next int64) error {
	if !w.fig.on || w.reshaped {
		return nil
	}
	f := w.fig
	if _, err := w.tx.ExecContext(ctx, sqlStoreFigure, w.conv, w.s.figures.key, f.created, f.shape, next, f.tokens, f.lastID, f.lastTokens); err != nil {
		return fmt.Errorf("keep the view's tokens of %q: %w", w.conv, err)
	}
	return nil
}
