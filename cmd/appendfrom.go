package cmd

import (
	"context"
	"errors"
	"slices"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/pkg/answer"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/transcript"
)

// runFrom is append --from P: the provider's response body on stdin is
// the assistant's answer, appended as one record through the same store
// path as any append (pkg/answer makes the records).
func (o *appendOptions) runFrom(ctx context.Context, args []string) error {
	a := o.f
	if err := o.checkFrom(args); err != nil {
		return err
	}
	now := a.nowMillis()
	an, err := flagvalue.Annotation(o.timing, o.aux, nil, now)
	if err != nil {
		return err
	}
	// The body may echo a key (an error body answering a bad one, pasted
	// from curl): stderr hides every key convo holds whatever writes it,
	// and the answer's text is rid of them below (secrets.Guard). The body is
	// not rewritten as a whole: its provider data must reach the store
	// byte for byte or not at all.
	body, err := format.ReadResponse(a.IO.In)
	if err != nil {
		return err
	}
	newID := func() string { return "call_" + a.IDs.New(now) }
	ans, cut, err := answer.Parse(o.from, body, newID, o.allowIncomplete)
	if err != nil {
		return err
	}
	if cut != nil {
		a.warnf("%v: appended anyway", cut)
	}
	if ans.Compaction != nil {
		return o.appendCompaction(ctx, ans, an, now)
	}
	rec, err := answer.Record(o.from, ans, an, a.secrets.Guard, now)
	if err != nil {
		return err
	}
	if o.conversation == "" {
		// No transcript on stdin to continue: the record is printed alone.
		rec = answer.Alone(rec, o.from, ans, func() string { return a.IDs.New(now) }, now)
		enc := transcript.NewEncoder(a.IO.Out)
		return errors.Join(enc.Encode(&rec), enc.Flush())
	}
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	if err := answer.Place(ctx, s, o.conversation, o.from, ans, &rec, now); err != nil {
		return err
	}
	return o.store(ctx, transcript.Slice(rec))
}

// checkFrom checks the flags and arguments that go with --from.
func (o *appendOptions) checkFrom(args []string) error {
	switch {
	case !slices.Contains(format.Names(format.CanParse), o.from):
		return exitcode.Usagef("--from %q: want one of %s", o.from, format.NameList(format.CanParse))
	case len(args) > 0:
		return exitcode.Usagef("--from reads the answer on stdin: TEXT arguments do not go with it")
	case o.role != "user" || o.toolCallID != "" || o.name != "" || o.isError:
		return exitcode.Usagef("--role, --tool-call-id, --name and --is-error do not go with --from: the answer is the assistant's")
	case o.f.IO.StdinIsTerminal():
		return exitcode.Usagef("--from %s: pipe the provider's response body on stdin", o.from)
	}
	if o.conversation != "" {
		return flagvalue.ConversationID(o.conversation)
	}
	return nil
}

// appendCompaction is append --from for a body holding a provider's
// compaction: a summary standing for the stored view, then the answer that
// came with it, if any, in one transaction, only if nothing came after what
// the summary covers. The originals stay.
func (o *appendOptions) appendCompaction(ctx context.Context, ans *format.Answer, an *transcript.Annotation, now int64) error {
	a := o.f
	if o.conversation == "" {
		return exitcode.Usagef("--from %s: the body holds a compaction, which stands for stored records: give -c", o.from)
	}
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	c, err := answer.Compaction(ctx, s, o.conversation, o.from, ans, an, now)
	if err != nil {
		return err
	}
	a.warnf("%s compaction: a summary standing for %s (kept), %s", o.from, plural(c.Covered, "record"), answer.CompactionNote(ans.Compaction))
	return o.store(ctx, transcript.Slice(c.Records...), c.Last)
}
