package summarize

// Reading a provider's batch results back (see batch.go).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// BatchInOptions shape BatchIn. Options are the run's: a result whose
// request the store recorded is applied by the options recorded with it
// (Prompt, Template and Redact stay these); one it did not record (an
// older convo's, another store's, one dropped by age) by these, which must
// then be those BatchOut was given, so that the summary covers what was
// asked about.
type BatchInOptions struct {
	Options Options
	// DeleteOriginals deletes the covered records, as does a request
	// recorded with it.
	DeleteOriginals bool
	IDs             *transcript.IDs
	Now             func() time.Time
	// Done, when set, hears of each result line in file order: the summary
	// stored (Result.Summary), or why not (BatchOutcome).
	Done func(BatchOutcome)
}

// BatchOutcome is what became of one result line.
type BatchOutcome struct {
	Result
	CustomID string
	Line     int
	// Status is "stored", "already summarized" (a summary of the same
	// records stands: this result's, applied before, or a live one),
	// "changed" (the conversation changed since the request, or is gone),
	// "errored", "expired" or "canceled" (the line holds no usable summary)
	// or "failed" (the store or the summary failed).
	Status string
	Err    error
	// Recorded says the store held the request: its recorded options were
	// used, and it is dropped now (unless Status is "failed").
	Recorded bool
}

// batchEntry is one result line, read and checked before anything is
// written: the summary's text and model, or why there is none.
type batchEntry struct {
	line     int
	customID string
	id       batchID
	out      Output // the summary, as a live call would have returned it
	// errored says why the line holds no summary; status is "errored",
	// "expired" or "canceled".
	errored error
	status  string
}

// BatchIn reads a provider's batch result lines from r (in any order) and
// stores each summary as Runner.Run would have when the request was made:
// placed after the record it was planned to follow, the conversation
// checked unchanged since, by the options recorded with the request. A
// conversation changed since is skipped (Changed); a result whose summary
// is stored already adds nothing (Already); an errored, expired or
// cut-short result is skipped (Errored). A recorded request whose result
// was read is dropped (with the summary, in its transaction), but not one
// whose storing failed; so are those past BatchPendingAge. The whole file
// is read and checked first: a line that is not a result of a --batch-out
// request is a *transcript.InputError and nothing is stored. The error is
// then ErrFailed (wrapped) when some result was skipped (changed, errored)
// or failed.
func BatchIn(ctx context.Context, s BatchStore, r io.Reader, opt BatchInOptions) (BatchTally, error) {
	entries, err := readBatchResults(r)
	if err != nil {
		return BatchTally{}, err
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	if err := dropOld(ctx, s, now()); err != nil {
		return BatchTally{}, err
	}
	pending := map[string]store.BatchRequest{}
	if err := s.BatchRequests(ctx, func(b store.BatchRequest) error {
		pending[b.CustomID] = b
		return nil
	}); err != nil {
		return BatchTally{}, err
	}
	convs, err := unrecordedConversations(ctx, s, entries, pending)
	if err != nil {
		return BatchTally{}, err
	}
	ids := opt.IDs
	if ids == nil {
		ids = defaultIDs()
	}
	cs := counters{}
	if c := opt.Options.Counter; c != nil {
		cs[c.Name()] = c
	}
	var drop []string
	defer func() {
		// Results read are done with, even when the run is cut short.
		if len(drop) > 0 {
			s.DropBatchRequests(context.WithoutCancel(ctx), 0, drop...)
		}
	}()
	tally := BatchTally{Conversations: len(entries)}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return tally, err
		}
		req, recorded := pending[e.customID]
		o := BatchOutcome{Result: Result{Conversation: convs[e.id.conv]}, CustomID: e.customID, Line: e.line, Recorded: recorded}
		apply := batchApply{opt: opt.Options, deleteOriginals: opt.DeleteOriginals}
		if recorded {
			o.Conversation, apply.request = req.Conversation, req.CustomID
			var del bool
			if apply.opt, del, err = recordedOptions(req, opt.Options, cs); err != nil {
				o.Status, o.Err = "failed", err
			}
			apply.deleteOriginals = apply.deleteOriginals || del
		} else {
			tally.Unrecorded++
		}
		switch {
		case o.Err != nil:
		case e.errored != nil:
			o.Status, o.Err = e.status, e.errored
		case o.Conversation == "":
			o.Status, o.Err = "changed", errors.New("no such conversation (cleared since the request?)")
		default:
			o.Summary, o.Status, o.Err = applyBatchResult(ctx, s, o.Conversation, e, apply, ids, now)
		}
		switch o.Status {
		case "stored":
			tally.Stored++
		case "already summarized":
			tally.Already++
		case "changed":
			tally.Changed++
		case "errored", "expired", "canceled":
			tally.Errored++
		default:
			tally.Failed++
		}
		if recorded && o.Status != "failed" && o.Status != "stored" {
			drop = append(drop, e.customID)
		}
		if opt.Done != nil {
			opt.Done(o)
		}
	}
	if n := tally.Changed + tally.Errored + tally.Failed; n > 0 {
		return tally, fmt.Errorf("%d of %d results skipped or %w", n, len(entries), ErrFailed)
	}
	return tally, nil
}

// unrecordedConversations maps the conversation hash of each custom_id
// the store holds no request for to its conversation: those are found by
// hashing every conversation's id, as before requests were recorded.
func unrecordedConversations(ctx context.Context, s Store, entries []batchEntry, pending map[string]store.BatchRequest) (map[string]string, error) {
	convs := map[string]string{}
	for _, e := range entries {
		if _, ok := pending[e.customID]; !ok {
			err := s.Conversations(ctx, func(c store.ConversationInfo) error {
				convs[shortHash(c.ID)] = c.ID
				return nil
			})
			return convs, err
		}
	}
	return convs, nil
}

// batchApply is how one result is applied: by these options, dropping
// request (when set) with the summary.
type batchApply struct {
	opt             Options
	deleteOriginals bool
	request         string
}

// applyBatchResult stores e's summary in conv unless conv changed since
// the request or holds it already.
func applyBatchResult(ctx context.Context, s Store, conv string, e batchEntry, a batchApply, ids *transcript.IDs, now func() time.Time) (*transcript.Record, string, error) {
	recs, seqs, err := readSeqs(ctx, s, conv)
	if err != nil {
		return nil, "failed", err
	}
	prev := ""
	if i := transcript.LatestSummary(recs); i >= 0 {
		prev = recs[i].ID
		if shortHash(recs[i].Metadata.SummaryIDs...) == e.id.covered {
			return nil, "already summarized", nil
		}
	}
	// The conversation as the request saw it: records appended or changed
	// since are left out, so the plan is the one the request was made from
	// if nothing it covers changed.
	asked := recs[:0:0]
	for i := range recs {
		if seqs[i] <= e.id.readSeq {
			asked = append(asked, recs[i])
		}
	}
	changed := errors.New("the conversation changed since the request was made")
	if a.request == "" {
		changed = errors.New("the conversation changed since the request was made (or, the request not being recorded in this store, --batch-in was given other summarize options than --batch-out)")
	}
	plan, _, err := Prepare(asked, a.opt)
	if err != nil {
		return nil, "failed", err
	}
	if plan == nil || shortHash(plan.CoveredIDs()...) != e.id.covered {
		return nil, "changed", changed
	}
	at := now().UnixMilli()
	rec, err := plan.Record(e.out, e.id.api.provider, ids.New(at), at, a.opt)
	if errors.Is(err, ErrBadSummary) {
		return nil, "errored", err // the answer will never do
	}
	if err != nil {
		return nil, "failed", err
	}
	err = s.WriteSummary(ctx, conv, store.SummaryWrite{
		Anchor: plan.AnchorID(), Summary: &rec, DeleteCovered: a.deleteOriginals,
		Check: true, PreviousID: prev, ReadSeq: e.id.readSeq, BatchRequest: a.request,
	})
	if errors.Is(err, store.ErrConflict) {
		return nil, "changed", changed
	}
	if err != nil {
		return nil, "failed", err
	}
	return &rec, "stored", nil
}

// maxResultLine bounds a result line: a summary's answer with its
// envelope is kilobytes.
const maxResultLine = 16 << 20

// readBatchResults reads every result line, keeping of each only what
// storing its summary needs.
func readBatchResults(r io.Reader) ([]batchEntry, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var entries []batchEntry
	for n := 1; ; n++ {
		line, err := transcript.ReadLine(br, maxResultLine)
		if len(line) > maxResultLine {
			return nil, &transcript.InputError{Line: n, Err: fmt.Errorf("a line over %d MiB: no result of a summary is that long", maxResultLine>>20)}
		}
		if len(bytes.TrimSpace(line)) > 0 {
			e, lerr := readBatchResult(line)
			if lerr != nil {
				return nil, &transcript.InputError{Line: n, Err: lerr}
			}
			e.line = n
			entries = append(entries, e)
		}
		if errors.Is(err, io.EOF) {
			return entries, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readBatchResult reads one result line of either format.
func readBatchResult(line []byte) (batchEntry, error) {
	var res struct {
		CustomID string `json:"custom_id"`
		// OpenAI Batch
		Response *struct {
			StatusCode int             `json:"status_code"`
			Body       json.RawMessage `json:"body"`
		} `json:"response"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		// Anthropic Message Batches
		Result *struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
			Error   json.RawMessage `json:"error"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &res); err != nil {
		return batchEntry{}, fmt.Errorf("not a batch result line: %w", err)
	}
	id, err := parseBatchID(res.CustomID)
	if err != nil {
		return batchEntry{}, err
	}
	e := batchEntry{customID: res.CustomID, id: id}
	var body []byte
	switch {
	case id.api.url == "" && res.Result != nil: // anthropic
		switch res.Result.Type {
		case "succeeded":
			body = res.Result.Message
		case "errored":
			msg, _ := format.ErrorMessage(res.Result.Error)
			e.status, e.errored = "errored", errors.New(msg)
		case "expired":
			e.status, e.errored = "expired", errors.New("the batch ended before this request was processed")
		case "canceled":
			e.status, e.errored = "canceled", errors.New("the batch was canceled before this request was processed")
		default:
			return batchEntry{}, fmt.Errorf("custom_id %s: result type %q: want succeeded, errored, expired or canceled", res.CustomID, res.Result.Type)
		}
	case id.api.url != "" && res.Error != nil:
		e.status = "errored"
		if res.Error.Code == "batch_expired" {
			e.status = "expired"
		}
		e.errored = fmt.Errorf("%s: %s", res.Error.Code, res.Error.Message)
	case id.api.url != "" && res.Response != nil && res.Response.StatusCode/100 != 2:
		msg, _ := format.ErrorMessage(res.Response.Body)
		e.status, e.errored = "errored", fmt.Errorf("HTTP %d: %s", res.Response.StatusCode, msg)
	case id.api.url != "" && res.Response != nil:
		body = res.Response.Body
	default:
		return batchEntry{}, fmt.Errorf("custom_id %s: not a %s batch result", res.CustomID, id.api.provider)
	}
	if e.errored != nil {
		return e, nil
	}
	ans, err := format.ParseReply(id.api.provider, body, nil)
	if err != nil {
		// Cut short, refused, an error body: no summary to store.
		e.status, e.errored = "errored", err
		return e, nil
	}
	e.out = Output{Text: ans.Text(), Model: ans.Model, InputTokens: ans.Usage.InputTokens, OutputTokens: ans.Usage.OutputTokens}
	return e, nil
}
