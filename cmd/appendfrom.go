package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/convo-cli/convo/pkg/format"
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
	// from curl): stderr hides every key convo holds whatever writes it,
	// and the answer's text is rid of them below (a.guard). The body is
	// not rewritten as a whole: its provider data must reach the store
	// byte for byte or not at all.
	body, err := format.ReadResponse(a.IO.In)
	if err != nil {
		return err
	}
	newID := func() string { return "call_" + a.IDs.New(now) }
	ans, err := format.ParseResponse(o.from, body, newID)
	var inc *format.IncompleteError
	if errors.As(err, &inc) {
		switch {
		case inc.Empty != "":
			// Nothing to keep, cut short or not: the body is no answer.
			return &transcript.InputError{Err: fmt.Errorf("%s response body holds no answer: %s%s; nothing appended",
				o.from, inc.Empty, finishNote(inc))}
		case !o.allowIncomplete:
			return fmt.Errorf("%w: nothing appended (--allow-incomplete appends it anyway)", err)
		}
		// Arguments cut with the answer are none a provider takes back.
		if err := transcript.CheckCalls(&ans.Record); err != nil {
			return fmt.Errorf("%s answer cut short: %w; nothing appended", o.from, err)
		}
		a.warnf("%v: appended anyway", err)
		err = nil
	}
	if err != nil {
		return err
	}
	if ans.Compaction != nil {
		return a.appendCompaction(ctx, o, ans, an, now)
	}
	rec := ans.Record
	// The body arrived when the call ended; --timing may say otherwise.
	_ = rec.Metadata.Timing.Set("llmEnd", now)
	_ = an.Apply(&rec) // annotationFlags checked the keys
	if err := a.guard(&rec); err != nil {
		return fmt.Errorf("%s answer: %w; nothing appended", o.from, err)
	}
	if err := transcript.Validate(&rec); err != nil {
		return err
	}
	// The answer's time: the provider's, else when its body was read.
	at := ans.Created
	if at.IsZero() {
		at = time.UnixMilli(now)
	}

	if o.conversation == "" {
		// No transcript on stdin to continue: print the record alone.
		rec.ID = fromAnswerID(at, o.from, ans.ResponseID, nil)
		if rec.ID == "" {
			rec.ID = a.IDs.New(now)
		}
		rec.Conversation = transcript.DefaultConversation
		rec.Metadata.Timing.Creation = now
		enc := transcript.NewEncoder(a.IO.Out)
		return errors.Join(enc.Encode(&rec), enc.Flush())
	}
	if ans.ResponseID != "" {
		before, _, err := a.storedTail(ctx, o.conversation)
		if err != nil {
			return err
		}
		rec.ID = fromAnswerID(at, o.from, ans.ResponseID, before)
	}
	return a.appendStored(ctx, o, oneRecord(rec))
}

// finishNote says why an empty answer ended: " (finish reason R)", "
// (prompt blocked (blockReason R))", or "" when the body does not say.
func finishNote(inc *format.IncompleteError) string {
	switch {
	case strings.HasPrefix(inc.Reason, "blockReason "):
		return " (" + inc.Detail() + ")"
	case inc.Answer != nil && inc.Answer.FinishReason != "":
		return " (finish reason " + inc.Answer.FinishReason + ")"
	}
	return ""
}

// fromAnswerID is the id of an answer read from a provider's response body
// (append --from), by the rule for ids made from outside data
// (transcript.SourceID): its time part at, its random part a hash of the
// provider and the response id, so that the same response appended twice,
// by a retried script, is stored once (the store skips a known id). before
// are the conversation's last records (nil: none known):
//   - a record among them that holds this answer already (the same random
//     part, as an answer appended at another time has; or, merged into
//     another record, the same provider and response id under aux) gives
//     its id, which the store then skips;
//   - else the time part is moved up to 1 ms past the last record's, when
//     it falls before it, so that ids keep transcript order (a body's
//     creation time is in whole seconds, and a replayed body's is old).
//
// A response without an id ("" here: ollama's) gets "", and so an ordinary
// id on append, as any record does.
func fromAnswerID(at time.Time, provider, responseID string, before []transcript.Record) string {
	if responseID == "" {
		return ""
	}
	id := transcript.SourceID(at, provider, responseID)
	var last uint64
	for i := range before {
		r := &before[i]
		if transcript.SameSource(r.ID, id) || sameAnswer(r, provider, responseID) {
			return r.ID
		}
		if u, err := ulid.ParseStrict(r.ID); err == nil {
			last = max(last, u.Time())
		}
	}
	if len(before) > 0 && uint64(max(at.UnixMilli(), 0)) <= last {
		id = transcript.SourceID(time.UnixMilli(int64(last)+1), provider, responseID)
	}
	return id
}

// sameAnswer reports whether r holds the answer of provider's response
// responseID: its aux names them (the latest answer merged into r does).
func sameAnswer(r *transcript.Record, provider, responseID string) bool {
	var p, id string
	aux := r.Metadata.Aux
	return r.Message.Role == transcript.RoleAssistant &&
		json.Unmarshal(aux["provider"], &p) == nil && p == provider &&
		json.Unmarshal(aux["response_id"], &id) == nil && id == responseID
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
