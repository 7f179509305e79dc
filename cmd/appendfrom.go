package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
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
	// The body may echo a key (an error body answering a bad one, pasted
	// from curl): every key convo knows is hidden before anything is read,
	// so no error, note or record can show it.
	raw, err := io.ReadAll(io.LimitReader(a.IO.In, format.MaxResponseBytes+1))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	raw = llm.NewRedactor(llm.KnownKeys(a.getenv)...).Bytes(raw)
	body, err := format.ReadResponse(bytes.NewReader(raw))
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

// appendTail is how many stored records appendDecoder reads to judge the
// tool results of an append: enough for any real run of calls and results,
// few enough that a long conversation is not read whole on every append.
const appendTail = 64

// appendDecoder reads append's stdin (the records and messages of a plain
// append; it lives here beside --from's reading) with the checks of an
// append: with conv, records moved into conv (said on stderr, as every
// change reading makes), and tool results judged against the last stored
// records as well as the lines before them.
func (a *Factory) appendDecoder(ctx context.Context, conv string) (*transcript.Decoder, error) {
	dec := transcript.NewDecoder(a.IO.In)
	dec.Warn = func(line int, msg string) { a.warnf("line %d: %s", line, msg) }
	if conv == "" {
		return dec, nil
	}
	dec.Conversation = conv
	before, whole, err := a.storedTail(ctx, conv)
	if err != nil {
		return nil, err
	}
	dec.CheckAppend(before, whole)
	return dec, nil
}

// storedTail reads conv's last appendTail records, for the checks of what
// an append adds after them; whole says they are all of it.
func (a *Factory) storedTail(ctx context.Context, conv string) ([]transcript.Record, bool, error) {
	s, err := a.Store(ctx)
	if err != nil {
		return nil, false, err
	}
	var before []transcript.Record
	err = s.Read(ctx, conv, store.ReadOptions{Limit: appendTail}, func(row store.Row) error {
		var r transcript.Record
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return err
		}
		before = append(before, r)
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, false, err
	}
	return before, len(before) < appendTail, nil
}
