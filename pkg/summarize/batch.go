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
// BatchOut writes the requests a live summarize --all would send, and
// records each in the store as pending (batch_pending.go); BatchIn stores
// the summaries the results hold, each as Runner.Run would have stored it
// then, by the options recorded with its request. What ties a result to
// its conversation and to the state the request was made from is its
// custom_id (see batchID): a conversation that changed since is skipped
// and named, and a result already stored adds nothing.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
// of the conversation's id and a NUL byte (ids run to 256 bytes; custom_id
// to 64 characters), read sequence the store's change sequence when the
// conversation was read (base 36), and covered 16 hex digits of the SHA-256
// of the ids the summary replaces, each followed by a NUL byte. At most 50 characters of
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
	// DeleteOriginals is recorded with each request: --batch-in then
	// deletes the covered records.
	DeleteOriginals bool
	// Now stamps the requests recorded (time.Now when nil).
	Now func() time.Time
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
	Unrecorded    int // results whose request the store does not hold (BatchIn): applied with the options given
}

// BatchOut writes to w one request line for each conversation of s that
// opt would summarize now: the body Runner.Run's LLM summarizer would send,
// in the provider's batch format. It stores no summary: once every line is
// written, it records the requests as pending, in one transaction, and
// drops those past BatchPendingAge. A conversation that cannot be read is
// counted as failed and the rest go on; the error is the listing's, w's,
// the store's, or ErrFailed (wrapped).
func BatchOut(ctx context.Context, s BatchStore, opt Options, out BatchOutOptions, w io.Writer) (BatchTally, error) {
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
	now := out.Now
	if now == nil {
		now = time.Now
	}
	policy, err := json.Marshal(policyOf(opt, out.DeleteOriginals))
	if err != nil {
		return BatchTally{}, err
	}
	var reqs []store.BatchRequest
	tally := BatchTally{Conversations: len(ids)}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, conv := range ids {
		if err := ctx.Err(); err != nil {
			return tally, err
		}
		res := Result{Conversation: conv}
		line, req, skip, err := batchRequest(ctx, s, conv, opt, api, model)
		switch {
		case err != nil:
			tally.Failed++
		case skip.NothingToCover():
			tally.Nothing++
		case skip.TriggerNotMet():
			tally.NotDue++
		default:
			if err := enc.Encode(line); err != nil {
				return tally, err
			}
			tally.Requests++
			req.Options = policy
			reqs = append(reqs, req)
		}
		res.Skip = skip
		if out.Done != nil {
			out.Done(res, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return tally, err
	}
	at := now()
	for i := range reqs {
		reqs[i].Created = at.UnixMilli()
	}
	if err := dropOld(ctx, s, at); err != nil {
		return tally, err
	}
	if err := s.AddBatchRequests(ctx, reqs); err != nil {
		return tally, fmt.Errorf("the requests are written but not recorded (give --batch-in the same summarize options): %w", err)
	}
	if tally.Failed > 0 {
		return tally, fmt.Errorf("%d of %d conversations %w", tally.Failed, len(ids), ErrFailed)
	}
	return tally, nil
}

// batchRequest is conv's request line and what to record of it, or why
// there is none.
func batchRequest(ctx context.Context, s Store, conv string, opt Options, api batchAPI, model string) (any, store.BatchRequest, Skip, error) {
	var req store.BatchRequest
	recs, seqs, err := readSeqs(ctx, s, conv)
	if err != nil {
		return nil, req, "", err
	}
	plan, skip, err := Prepare(recs, opt)
	if err != nil || plan == nil {
		return nil, req, skip, err
	}
	body, err := requestBody(api.provider, model, plan.Input)
	if err != nil {
		return nil, req, "", err
	}
	covered := plan.CoveredIDs()
	id := batchID{api: api, conv: shortHash(conv), readSeq: maxSeq(seqs), covered: shortHash(covered...)}
	req = store.BatchRequest{CustomID: id.String(), Conversation: conv, ReadSeq: id.readSeq,
		Covered: int64(len(covered)), Summarizer: api.provider, Model: model}
	if len(covered) > 0 {
		req.FirstID, req.LastID = covered[0], covered[len(covered)-1]
	}
	if api.url == "" {
		return struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		}{req.CustomID, body}, req, "", nil
	}
	return struct {
		CustomID string          `json:"custom_id"`
		Method   string          `json:"method"`
		URL      string          `json:"url"`
		Body     json.RawMessage `json:"body"`
	}{req.CustomID, "POST", api.url, body}, req, "", nil
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
