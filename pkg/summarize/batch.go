package summarize

// Batch files for the providers' batch APIs (half the price of live calls,
// answered within 24 hours):
//   OpenAI Batch:   https://platform.openai.com/docs/guides/batch and
//                   https://platform.openai.com/docs/api-reference/batch/request-input:
//                   request lines {"custom_id","method":"POST","url","body"},
//                   result lines {"id","custom_id","response":{"status_code",
//                   "request_id","body"},"error"} (an expired or failed request
//                   has "response": null and "error": {"code","message"}).
//   Anthropic Message Batches: https://docs.anthropic.com/en/api/creating-message-batches
//                   and .../retrieving-message-batch-results: requests
//                   {"custom_id","params"}, results {"custom_id","result":
//                   {"type":"succeeded","message"} | {"type":"errored","error"} |
//                   {"type":"canceled"} | {"type":"expired"}}. custom_id must
//                   match ^[a-zA-Z0-9_-]{1,64}$.
//
// BatchOut writes the requests a live summarize --all would send; BatchIn
// stores the summaries the results hold, each as Runner.Run would have
// stored it then. What ties a result to its conversation and to the state
// the request was made from is its custom_id (see batchID): a conversation
// that changed since is skipped and named, and a result already stored
// adds nothing.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// batchAPI is one provider's batch format: the letter its custom_ids
// start with, and for an OpenAI-style batch the endpoint each request line
// names ("" for Anthropic's Message Batches).
type batchAPI struct {
	provider string
	code     byte
	url      string
}

// batchAPIs are the providers whose batch files convo writes and reads:
// another API of the OpenAI Batch format is one more row.
var batchAPIs = []batchAPI{
	{"openai", 'o', "/v1/chat/completions"},
	{"anthropic", 'a', ""},
	{"openai-responses", 'r', "/v1/responses"},
}

// BatchProviders names the providers BatchOut writes requests for.
func BatchProviders() []string {
	names := make([]string, len(batchAPIs))
	for i, a := range batchAPIs {
		names[i] = a.provider
	}
	return names
}

func batchAPIOf(provider string) (batchAPI, bool) {
	for _, a := range batchAPIs {
		if a.provider == provider {
			return a, true
		}
	}
	return batchAPI{}, false
}

// batchID is a request's custom_id: "<api letter>1_<conversation>_<read
// sequence>_<covered>", where conversation is 16 hex digits of the SHA-256
// of the conversation's id (ids run to 256 bytes; custom_id to 64
// characters), read sequence the store's change sequence when the
// conversation was read (base 36), and covered 16 hex digits of the SHA-256
// of the ids the summary replaces. At most 50 characters of
// [a-z0-9_], within both providers' limits.
type batchID struct {
	api     batchAPI
	conv    string // hash
	readSeq int64
	covered string // hash
}

func (b batchID) String() string {
	return string(b.api.code) + "1_" + b.conv + "_" + strconv.FormatInt(b.readSeq, 36) + "_" + b.covered
}

func parseBatchID(s string) (batchID, error) {
	parts := strings.Split(s, "_")
	if len(parts) != 4 || len(parts[0]) != 2 || parts[0][1] != '1' || len(parts[1]) != 16 || len(parts[3]) != 16 {
		return batchID{}, fmt.Errorf("custom_id %q was not written by summarize --batch-out", s)
	}
	var b batchID
	for _, a := range batchAPIs {
		if a.code == parts[0][0] {
			b.api = a
		}
	}
	seq, err := strconv.ParseInt(parts[2], 36, 64)
	if b.api.provider == "" || err != nil || seq < 0 {
		return batchID{}, fmt.Errorf("custom_id %q was not written by summarize --batch-out", s)
	}
	b.conv, b.readSeq, b.covered = parts[1], seq, parts[3]
	return b, nil
}

func shortHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// BatchOutOptions say what BatchOut asks for.
type BatchOutOptions struct {
	// Provider is one of BatchProviders; Model the model to ask ("" takes
	// the registry's default).
	Provider, Model string
	// Done, when set, hears of each conversation: the request written
	// (Result.Summary nil, Skip ""), or why none was.
	Done func(Result, error)
}

// BatchTally counts what BatchOut or BatchIn came to.
type BatchTally struct {
	Conversations int // listed (BatchOut) or results read (BatchIn)
	Requests      int // request lines written
	Nothing       int // nothing to cover
	NotDue        int // under the trigger
	Stored        int // summaries stored
	Already       int // results whose records a summary stands for already
	Changed       int // conversations changed since the request (or cleared)
	Errored       int // results that carry no summary: errored, expired, cut short
	Failed        int
}

// BatchOut writes to w one request line for each conversation of s that
// opt would summarize now: the body Runner.Run's LLM summarizer would send,
// in the provider's batch format. It stores nothing. A conversation that
// cannot be read is counted as failed and the rest go on; the error is the
// listing's, w's, or ErrFailed (wrapped).
func BatchOut(ctx context.Context, s Store, opt Options, out BatchOutOptions, w io.Writer) (BatchTally, error) {
	api, ok := batchAPIOf(out.Provider)
	if !ok {
		return BatchTally{}, fmt.Errorf("no batch API for %q (want one of %s)", out.Provider, strings.Join(BatchProviders(), ", "))
	}
	p, _ := format.Lookup(out.Provider)
	model := out.Model
	if model == "" {
		model = p.DefaultModel
	}
	var ids []string
	if err := s.Conversations(ctx, func(c store.ConversationInfo) error {
		ids = append(ids, c.ID)
		return nil
	}); err != nil {
		return BatchTally{}, err
	}
	tally := BatchTally{Conversations: len(ids)}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, conv := range ids {
		if err := ctx.Err(); err != nil {
			return tally, err
		}
		res := Result{Conversation: conv}
		line, skip, err := batchRequest(ctx, s, conv, opt, api, model)
		switch {
		case err != nil:
			tally.Failed++
		case skip.NothingToCover():
			tally.Nothing++
		case skip == SkipTrigger:
			tally.NotDue++
		default:
			if err := enc.Encode(line); err != nil {
				return tally, err
			}
			tally.Requests++
		}
		res.Skip = skip
		if out.Done != nil {
			out.Done(res, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return tally, err
	}
	if tally.Failed > 0 {
		return tally, fmt.Errorf("%d of %d conversations %w", tally.Failed, len(ids), ErrFailed)
	}
	return tally, nil
}

// batchRequest is conv's request line, or why there is none.
func batchRequest(ctx context.Context, s Store, conv string, opt Options, api batchAPI, model string) (any, Skip, error) {
	recs, seqs, err := readSeqs(ctx, s, conv)
	if err != nil {
		return nil, "", err
	}
	plan, skip, err := Prepare(recs, opt)
	if err != nil || plan == nil {
		return nil, skip, err
	}
	body, err := requestBody(api.provider, model, plan.Input)
	if err != nil {
		return nil, "", err
	}
	id := batchID{api: api, conv: shortHash(conv), readSeq: maxSeq(seqs), covered: shortHash(plan.CoveredIDs()...)}.String()
	if api.url == "" {
		return struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		}{id, body}, "", nil
	}
	return struct {
		CustomID string          `json:"custom_id"`
		Method   string          `json:"method"`
		URL      string          `json:"url"`
		Body     json.RawMessage `json:"body"`
	}{id, "POST", api.url, body}, "", nil
}

// readSeqs reads conv from its latest summary on, with each record's
// change sequence.
func readSeqs(ctx context.Context, s Store, conv string) ([]transcript.Record, []int64, error) {
	var recs []transcript.Record
	var seqs []int64
	err := s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		var rec transcript.Record
		if err := transcript.DecodeStored(row.Body, &rec); err != nil {
			return fmt.Errorf("stored record is corrupt: %w", err)
		}
		rec.Conversation = conv
		recs = append(recs, rec)
		seqs = append(seqs, row.Seq)
		return nil
	})
	return recs, seqs, err
}

func maxSeq(seqs []int64) int64 {
	var m int64
	for _, s := range seqs {
		m = max(m, s)
	}
	return m
}

// BatchInOptions shape BatchIn: Options must be those BatchOut was given,
// so that the summary covers what was asked about.
type BatchInOptions struct {
	Options         Options
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
// checked unchanged since. A conversation changed since is skipped
// (Changed); a result whose summary is stored already adds nothing
// (Already); an errored, expired or cut-short result is skipped (Errored).
// The whole file is read and checked first: a line that is not a result of
// a --batch-out request is a *transcript.InputError and nothing is stored.
// The error is then ErrFailed (wrapped) when some result was errored or
// failed.
func BatchIn(ctx context.Context, s Store, r io.Reader, opt BatchInOptions) (BatchTally, error) {
	entries, err := readBatchResults(r)
	if err != nil {
		return BatchTally{}, err
	}
	convs := map[string]string{}
	if err := s.Conversations(ctx, func(c store.ConversationInfo) error {
		convs[shortHash(c.ID)] = c.ID
		return nil
	}); err != nil {
		return BatchTally{}, err
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	ids := opt.IDs
	if ids == nil {
		ids = defaultIDs()
	}
	tally := BatchTally{Conversations: len(entries)}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return tally, err
		}
		o := BatchOutcome{Result: Result{Conversation: convs[e.id.conv]}, CustomID: e.customID, Line: e.line}
		switch {
		case e.errored != nil:
			o.Status, o.Err = e.status, e.errored
			tally.Errored++
		case o.Conversation == "":
			o.Status, o.Err = "changed", errors.New("no such conversation (cleared since the request?)")
			tally.Changed++
		default:
			o.Summary, o.Status, o.Err = applyBatchResult(ctx, s, o.Conversation, e, opt, ids, now)
			switch o.Status {
			case "stored":
				tally.Stored++
			case "already summarized":
				tally.Already++
			case "changed":
				tally.Changed++
			default:
				tally.Failed++
			}
		}
		if opt.Done != nil {
			opt.Done(o)
		}
	}
	if n := tally.Errored + tally.Failed; n > 0 {
		return tally, fmt.Errorf("%d of %d results %w", n, len(entries), ErrFailed)
	}
	return tally, nil
}

// applyBatchResult stores e's summary in conv unless conv changed since
// the request or holds it already.
func applyBatchResult(ctx context.Context, s Store, conv string, e batchEntry, opt BatchInOptions, ids *transcript.IDs, now func() time.Time) (*transcript.Record, string, error) {
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
	changed := errors.New("the conversation changed since the request was made (or --batch-in was given other summarize options than --batch-out)")
	plan, _, err := Prepare(asked, opt.Options)
	if err != nil {
		return nil, "failed", err
	}
	if plan == nil || shortHash(plan.CoveredIDs()...) != e.id.covered {
		return nil, "changed", changed
	}
	at := now().UnixMilli()
	rec, err := plan.Record(e.out, e.id.api.provider, ids.New(at), at, opt.Options)
	if err != nil {
		return nil, "failed", err
	}
	err = s.WriteSummary(ctx, conv, store.SummaryWrite{
		Anchor: plan.AnchorID(), Summary: &rec, DeleteCovered: opt.DeleteOriginals,
		Check: true, PreviousID: prev, ReadSeq: e.id.readSeq,
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
		line, err := br.ReadBytes('\n')
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
