package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/transcript"
)

// runAppendFrom is append --from P: the provider's response body on stdin is
// the assistant's answer, appended as one record through the same store
// path as any append.
func (a *Factory) runAppendFrom(ctx context.Context, o *appendOptions, args []string) error {
	switch {
	case !slices.Contains(format.Names(format.CanParse), o.from):
		return usageErrorf("--from %q: want one of %s", o.from, format.NameList(format.CanParse))
	case len(args) > 0:
		return usageErrorf("--from reads the answer on stdin: TEXT arguments do not go with it")
	case o.role != "user" || o.toolCallID != "" || o.name != "" || o.isError:
		return usageErrorf("--role, --tool-call-id, --name and --is-error do not go with --from: the answer is the assistant's")
	case a.IO.StdinIsTerminal():
		return usageErrorf("--from %s: pipe the provider's response body on stdin", o.from)
	}
	if o.conversation != "" {
		if err := checkConversationID(o.conversation); err != nil {
			return err
		}
	}
	now := a.nowMillis()
	an, err := annotationFlags(o.timing, o.aux, nil, now)
	if err != nil {
		return err
	}
	body, err := format.ReadResponse(a.IO.In)
	if err != nil {
		return err
	}
	newID := func() string { return "call_" + a.IDs.New(now) }
	ans, err := format.ParseResponse(o.from, body, newID)
	var inc *format.IncompleteError
	if errors.As(err, &inc) {
		if !o.allowIncomplete {
			return fmt.Errorf("%w: nothing appended (--allow-incomplete appends it anyway)", err)
		}
		a.warnf("%v: appended anyway", err)
		err = nil
	}
	if err != nil {
		return err
	}
	rec := ans.Record
	rec.ID = answerID(o.from, ans.ResponseID)
	// The body arrived when the call ended; --timing may say otherwise.
	_ = rec.Metadata.Timing.Set("llmEnd", now)
	_ = an.Apply(&rec) // annotationFlags checked the keys
	if err := transcript.Validate(&rec); err != nil {
		return err
	}

	if o.conversation == "" {
		// No transcript on stdin to continue: print the record alone.
		rec.ID = a.IDs.New(now)
		rec.Conversation = transcript.DefaultConversation
		rec.Metadata.Timing.Creation = now
		enc := transcript.NewEncoder(a.IO.Out)
		return errors.Join(enc.Encode(&rec), enc.Flush())
	}
	return a.appendStored(ctx, o, oneRecord(rec))
}
