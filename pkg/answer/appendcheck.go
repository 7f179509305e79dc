package answer

import (
	"context"

	"github.com/convo-cli/convo/pkg/transcript"
)

// CheckAppend points dec, reading what a plain append adds to the stored
// conversation conv, at it: records moved into conv, and tool results
// judged against conv's last stored records (Tail) as well as the lines
// before them (transcript.Decoder.CheckAppend).
func CheckAppend(ctx context.Context, s Reader, dec *transcript.Decoder, conv string) error {
	before, whole, err := Tail(ctx, s, conv)
	if err != nil {
		return err
	}
	dec.Conversation = conv
	dec.CheckAppend(before, whole)
	return nil
}

// CheckToolResult refuses r, a tool result to append to the stored
// conversation conv alone, unless it answers an unanswered call of the
// assistant record before it (transcript.CheckToolResult): the store must
// never hold what render refuses, an orphan result.
func CheckToolResult(ctx context.Context, s Reader, conv string, r *transcript.Record) error {
	before, whole, err := Tail(ctx, s, conv)
	if err != nil {
		return err
	}
	return transcript.CheckToolResult(before, whole, r)
}
