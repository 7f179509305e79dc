package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/store"
)

// ackCommit is a parsed --ack token (pkg/export's codec): what
// --commit-cursor moves.
type ackCommit struct {
	sink  string
	marks []store.Mark
}

// parseAck reads a token export --ack printed (store.ParseAckToken);
// anything else is a usage error.
func parseAck(tok string) (*ackCommit, error) {
	sink, marks, err := store.ParseAckToken(tok)
	var bad *export.AckError
	if errors.As(err, &bad) {
		return nil, exitcode.Usagef("--commit-cursor: not a token that export --ack printed (%s)", bad.Why)
	}
	if err != nil {
		return nil, err
	}
	return &ackCommit{sink: sink, marks: marks}, nil
}

// commitCursorRun is export --commit-cursor TOKEN: the cursors move
// forward, never back, so a token committed twice or after a later one
// changes nothing.
func commitCursorRun(ctx context.Context, o *exportOptions) error {
	if len(o.commit.marks) == 0 {
		o.f.warnf("sink %q: the export found nothing new; no cursor to move", o.commit.sink)
		return nil
	}
	s, err := o.f.ExistingStore(ctx)
	if err != nil {
		return err
	}
	moved, err := s.Advance(ctx, o.commit.marks...)
	if err != nil {
		return err
	}
	o.f.warnf("sink %q: moved %d of the %d cursor(s) in the token; the others were there or past it already",
		o.commit.sink, moved, len(o.commit.marks))
	return nil
}

// printAck tells the person how to commit what the export sent; not even
// --quiet drops it, the token being the only way to move the cursor.
func (o *exportOptions) printAck(marks []store.Mark) {
	fmt.Fprintf(o.f.IO.ErrOut, "convo: nothing is marked as sent until the consumer confirms with: convo export --commit-cursor %s\n",
		store.AckToken(o.sink, marks))
}
