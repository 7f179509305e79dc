package store

// Copy: conversations moved between stores exactly as stored (convo copy),
// through Dump on the source and Load on the target, so any two backends
// copy into each other.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
)

// errCopyStopped ends a Dump whose pieces the target no longer wants.
var errCopyStopped = errors.New("copy stopped")

// Copy copies conv from src into dst as stored: ids, bodies, places, change
// sequences, counters, absorbed ids, export cursors and answer schema, in
// one transaction on dst. An existing conv in dst is ErrExists (wrapped)
// unless replace. It streams: Dump's callback feeds Load's pull one piece at
// a time, so one record at most is held in memory. A missing conv is
// ErrNotFound and dst is not written to.
func Copy(ctx context.Context, src, dst Store, conv string, replace bool) (records int, err error) {
	next, stop := iter.Pull2(dumpSeq(ctx, src, conv))
	defer stop()
	// The first piece is pulled before Load starts, so that a source error
	// (a missing conversation) opens no transaction on dst.
	first, err, ok := next()
	if !ok {
		return 0, fmt.Errorf("copy %q from %s: the dump was empty", conv, src.Describe())
	}
	if errors.Is(err, ErrNotFound) {
		return 0, err // Dump's message names the conversation
	}
	if err != nil {
		return 0, fmt.Errorf("copy %q from %s: %w", conv, src.Describe(), err)
	}
	pulled := false
	var srcErr error
	err = dst.Load(ctx, replace, func() (Dumped, error) {
		if !pulled {
			pulled = true
			return first, nil
		}
		d, err, ok := next()
		if !ok {
			return Dumped{}, io.EOF
		}
		if err != nil {
			srcErr = err
			return Dumped{}, err
		}
		if d.Record != nil {
			records++
		}
		return d, nil
	})
	switch {
	case err == nil:
		return records, nil
	case srcErr != nil && errors.Is(err, srcErr):
		return 0, fmt.Errorf("copy %q from %s: %w", conv, src.Describe(), err)
	case errors.Is(err, ErrExists):
		return 0, err // the target's message names the conversation and the store
	}
	return 0, fmt.Errorf("copy %q to %s: %w", conv, dst.Describe(), err)
}

// dumpSeq is src's Dump of conv as a sequence; a source error is its last
// element. Stopping it early rolls the Dump back.
func dumpSeq(ctx context.Context, src Store, conv string) iter.Seq2[Dumped, error] {
	return func(yield func(Dumped, error) bool) {
		err := src.Dump(ctx, conv, func(d Dumped) error {
			if !yield(d, nil) {
				return errCopyStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errCopyStopped) {
			yield(Dumped{}, err)
		}
	}
}

// CopyTally is what CopyAll did.
type CopyTally struct {
	Copied, Failed int
	Records        int64
}

// CopyAll copies every conversation of src into dst as Copy does, each in
// its own transaction, in id order, calling done after each. A conversation
// that fails (one that exists in dst without replace) is counted and the
// others go on; only an error listing src or the end of ctx stops it early.
func CopyAll(ctx context.Context, src, dst Store, replace bool, done func(conv string, records int, err error)) (CopyTally, error) {
	// The ids first: copying inside the listing's callback would hold src's
	// listing open across every copy.
	var convs []string
	if err := src.Conversations(ctx, func(c ConversationInfo) error {
		convs = append(convs, c.ID)
		return nil
	}); err != nil {
		return CopyTally{}, fmt.Errorf("list the conversations of %s: %w", src.Describe(), err)
	}
	var tally CopyTally
	for _, conv := range convs {
		n, err := Copy(ctx, src, dst, conv, replace)
		if err != nil {
			tally.Failed++
		} else {
			tally.Copied++
			tally.Records += int64(n)
		}
		if done != nil {
			done(conv, n, err)
		}
		if err := ctx.Err(); err != nil {
			return tally, err
		}
	}
	return tally, nil
}
