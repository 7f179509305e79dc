// Package answer is append --from's use case: a provider's response body,
// parsed by pkg/format, made into the records a stored conversation takes.
// An answer's id comes from its response id, so that the same body appended
// twice is stored once; a provider's compaction becomes a summary record
// standing for what the request was rendered from (SPEC section 7). It reads
// the store through the one method it declares (Reader) and writes nothing:
// the caller appends what it returns.
package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Reader is the part of a store this package reads; store.Store is one.
type Reader interface {
	// Read calls fn with each stored row of conv that opt selects, in
	// transcript order; store.ErrNotFound when conv does not exist.
	Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error
}

// Parse parses provider's response body. An answer cut short is an error
// unless allowIncomplete; when allowed, cut is the error to report and ans
// the answer to append anyway. A body that holds no answer at all is a
// transcript.InputError, allowed or not.
func Parse(provider string, body []byte, newID func() string, allowIncomplete bool) (ans *format.Answer, cut, err error) {
	ans, err = format.ParseResponse(provider, body, newID)
	var inc *format.IncompleteError
	if !errors.As(err, &inc) {
		return ans, nil, err
	}
	switch {
	case inc.Empty != "":
		// Nothing to keep, cut short or not: the body is no answer.
		return nil, nil, &transcript.InputError{Err: fmt.Errorf("%s response body holds no answer: %s%s; nothing appended",
			provider, inc.Empty, finishNote(inc))}
	case !allowIncomplete:
		return nil, nil, fmt.Errorf("%w: nothing appended (--allow-incomplete appends it anyway)", err)
	}
	// Arguments cut with the answer are none a provider takes back.
	if err := transcript.CheckCalls(&ans.Record); err != nil {
		return nil, nil, fmt.Errorf("%s answer cut short: %w; nothing appended", provider, err)
	}
	return ans, err, nil
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

// Time is the answer's time: the provider's, else now (when its body was
// read), in Unix milliseconds.
func Time(ans *format.Answer, now int64) time.Time {
	if ans.Created.IsZero() {
		return time.UnixMilli(now)
	}
	return ans.Created
}

// ID is the id of an answer read from a provider's response body, by the
// rule for ids made from outside data (transcript.SourceID): its time part
// at, its random part a hash of the provider and the response id, so that
// the same response appended twice, by a retried script, is stored once
// (the store skips a known id). before are the conversation's last records
// (nil: none known):
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
func ID(at time.Time, provider, responseID string, before []transcript.Record) string {
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

// TailLen is how many stored records Tail reads to judge what an append
// adds: enough for any real run of calls and results, few enough that a
// long conversation is not read whole on every append.
const TailLen = 64

// Tail reads conv's last TailLen records, for the checks of what an append
// adds after them (an answer's id, tool results); whole says they are all
// of it. A conversation that does not exist has none.
func Tail(ctx context.Context, s Reader, conv string) (before []transcript.Record, whole bool, err error) {
	err = s.Read(ctx, conv, store.ReadOptions{Limit: TailLen}, func(row store.Row) error {
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
	return before, len(before) < TailLen, nil
}
