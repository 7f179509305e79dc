package importer

// The entries of one walk into one conversation, in chunks: a chunk is
// written while the next one is decoded (two cores: the decoder and the
// database work at once), chunks commit in order, each with its cursor.

import (
	"context"
	"fmt"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// pathWrite is one path's import (Importer.path) under way.
type pathWrite struct {
	im   *Importer
	ctx  context.Context
	src  *Source
	st   fileState
	conv string
	cur  store.ImportCursor // conv's cursor before this import
	have bool               // cur is stored
	skip int                // the entries cur covers
	b    builder
	head string
	// chunk: the records decoded and not written yet.
	chunk      []transcript.Record
	chunkBytes int
	// i: entries walked; last: the latest not held; held: those since.
	i, held int
	last    string
	// next is where the next import may resume: past the last entry
	// stored, if its format can say (else from the start).
	next    Point
	pending chan written
	// after: the conversation as this import's last chunk left it; a
	// later chunk finding it otherwise (cleared, pruned, rewound since)
	// is refused.
	after *store.ImportState
	// One line per conversation, however many chunks it took.
	added, deleted int
	changed        bool
}

// written is a chunk's append, done.
type written struct {
	c   store.ImportCursor
	res store.AppendResult
	err error
}

// report says, once the path is done, what convo had deleted and what
// changed.
func (w *pathWrite) report() {
	im := w.im
	if w.deleted > 0 {
		im.opt.Warn(fmt.Sprintf("%s: %d records of %s that convo deleted (rewind, prune, clear, summarize --delete-originals) were not imported again (import --again %s brings them back)",
			w.src.Path, w.deleted, w.conv, w.conv))
	}
	if w.changed && im.opt.Changed != nil {
		im.opt.Changed(w.conv, w.added)
	}
}

// wait waits for the chunk being written, if any, and takes its result.
func (w *pathWrite) wait() error {
	if w.pending == nil {
		return nil
	}
	r := <-w.pending
	w.pending = nil
	if r.err != nil {
		return r.err
	}
	im := w.im
	im.Tally.add(w.conv, r.res)
	if im.opt.Stored != nil && r.res.Inserted+r.res.Merged > 0 {
		im.opt.Stored(r.res.Inserted + r.res.Merged)
	}
	st := r.res.State
	w.after = &st
	w.added += r.res.Inserted
	w.deleted += r.res.Deleted
	w.changed = w.changed || r.res.Inserted+r.res.Merged > 0
	im.cursors[[2]string{w.src.Path, w.conv}] = r.c
	im.byConv[w.conv] = r.c
	return nil
}

// flush writes the chunk with its cursor, the last one (final) waited for.
func (w *pathWrite) flush(final bool) error {
	im, src, st, cur := w.im, w.src, w.st, w.cur
	if w.b.first || w.have && !w.b.loaded && cur.Resume == "" {
		// No record yet (or none known): the first one's aux.import
		// takes what the session says of itself from the whole file.
		w.next = Point{}
	}
	c := store.ImportCursor{Source: src.Path, Conversation: w.conv, Tool: im.tool(),
		Size: st.size, MTime: st.mtime, Entries: int64(w.i - w.held), LastEntry: w.last, Head: w.head, Resume: w.next.encode(src)}
	if w.held > 0 {
		c.MTime = -1 // read again: what is held waits for its next entry
	}
	if !final {
		c.MTime = -1 // not the whole file yet: never "unchanged"
	}
	if err := w.wait(); err != nil {
		return err
	}
	c.After = w.after
	if len(w.chunk) == 0 && w.have && final && w.i == w.skip && cur.Size == c.Size && cur.MTime == c.MTime {
		return nil
	}
	recs := w.chunk
	w.chunk, w.chunkBytes = make([]transcript.Record, 0, len(recs)), 0
	w.pending = make(chan written, 1)
	go func(ctx context.Context, ch chan written) {
		res, err := im.st.ImportAppend(ctx, c, im.ids, transcript.Slice(recs...))
		ch <- written{c, res, err}
	}(w.ctx, w.pending)
	if final {
		return w.wait()
	}
	return nil
}

// entry takes the walk's next entry: past the cursor, its records join
// the chunk, which is written once full.
func (w *pathWrite) entry(e *Entry) error {
	im, src := w.im, w.src
	w.i++
	if w.i <= w.skip {
		if w.i == w.skip {
			if e.ID != w.cur.LastEntry {
				return errMoved
			}
			w.next = e.Next
		}
		return nil
	}
	if w.have && !w.b.loaded {
		if err := w.b.load(w.ctx); err != nil {
			return err
		}
	}
	recs, err := w.b.entry(e)
	if err != nil {
		return err
	}
	if im.opt.Guard != nil {
		for j := range recs {
			if err := im.opt.Guard(&recs[j]); err != nil {
				return fmt.Errorf("%s: entry %s: %w", src.Path, e.ID, err)
			}
		}
	}
	w.chunk = append(w.chunk, recs...)
	for j := range recs {
		w.chunkBytes += transcript.RecordSize(&recs[j])
	}
	if len(e.TurnAux) > 0 && !setTurnAux(w.chunk, e.TurnAux) {
		src.Note("usage of an answer stored before")
	}
	if e.Held {
		w.held++
	} else {
		w.last, w.held, w.next = e.ID, 0, e.Next
	}
	if (len(w.chunk) >= im.opt.Chunk || w.chunkBytes >= chunkLimit) && w.held == 0 {
		return w.flush(false)
	}
	return w.ctx.Err()
}
