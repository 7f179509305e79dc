package summarize

// Pending batch requests: what --batch-out recorded of each request it
// wrote (the conversation, the span, the change sequence, the summarizer
// and the options that shape the summary), so that --batch-in applies a
// result with nothing but the result file. See batch.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/tokens"
)

// BatchPendingAge is how long a pending request is kept: the providers keep
// a batch's results for 29 days (Anthropic; OpenAI until the file is
// deleted), and a result applied later than that is applied the old way,
// with the flags --batch-in is given.
const BatchPendingAge = 30 * 24 * time.Hour

// BatchStore is the store the batch files work on: Store, and the table of
// pending requests.
type BatchStore interface {
	Store
	AddBatchRequests(ctx context.Context, reqs []store.BatchRequest) error
	BatchRequests(ctx context.Context, fn func(store.BatchRequest) error) error
	DropBatchRequests(ctx context.Context, before int64, ids ...string) (int64, error)
}

// BatchPolicy is what a pending request records of the options that decide
// what the summary covers and carries (Prompt and Template shape only the
// request's body, which the provider already has).
type BatchPolicy struct {
	KeepLast         int     `json:"keepLast"`
	KeepLastTokens   int     `json:"keepLastTokens"`
	IfOver           int     `json:"ifOver"`
	Every            int     `json:"every"`
	MaxSummaryTokens int     `json:"maxSummaryTokens"`
	SummaryRatio     float64 `json:"summaryRatio"`
	LedgerSize       int     `json:"ledgerSize"`
	Tokenizer        string  `json:"tokenizer"`
	DeleteOriginals  bool    `json:"deleteOriginals"`
}

func policyOf(opt Options, deleteOriginals bool) BatchPolicy {
	p := BatchPolicy{
		KeepLast: opt.KeepLast, KeepLastTokens: opt.KeepLastTokens, IfOver: opt.IfOver, Every: opt.Every,
		MaxSummaryTokens: opt.MaxSummaryTokens, SummaryRatio: opt.SummaryRatio, LedgerSize: opt.LedgerSize,
		Tokenizer: tokens.Default, DeleteOriginals: deleteOriginals,
	}
	if opt.Counter != nil {
		p.Tokenizer = opt.Counter.Name()
	}
	return p
}

// counters builds each tokenizer once per run: loading one takes a while.
type counters map[string]*tokens.Counter

func (c counters) get(name string) (*tokens.Counter, error) {
	if k, ok := c[name]; ok {
		return k, nil
	}
	k, err := tokens.New(name)
	if err != nil {
		return nil, err
	}
	c[name] = k
	return k, nil
}

// recordedOptions are base with what r recorded in place of its policy.
func recordedOptions(r store.BatchRequest, base Options, cs counters) (Options, bool, error) {
	var p BatchPolicy
	if err := json.Unmarshal(r.Options, &p); err != nil {
		return Options{}, false, fmt.Errorf("the recorded request %s is unreadable: %w", r.CustomID, err)
	}
	counter, err := cs.get(p.Tokenizer)
	if err != nil {
		return Options{}, false, fmt.Errorf("the recorded request %s: %w", r.CustomID, err)
	}
	opt := base
	opt.KeepLast, opt.KeepLastTokens, opt.IfOver, opt.Every = p.KeepLast, p.KeepLastTokens, p.IfOver, p.Every
	opt.MaxSummaryTokens, opt.SummaryRatio, opt.LedgerSize, opt.Counter = p.MaxSummaryTokens, p.SummaryRatio, p.LedgerSize, counter
	return opt, p.DeleteOriginals, nil
}

// BatchPending returns the pending requests younger than BatchPendingAge
// at now, oldest first: those written and not yet applied.
func BatchPending(ctx context.Context, s BatchStore, now time.Time) ([]store.BatchRequest, error) {
	since := now.Add(-BatchPendingAge).UnixMilli()
	var out []store.BatchRequest
	err := s.BatchRequests(ctx, func(r store.BatchRequest) error {
		if r.Created >= since {
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// dropOld drops the requests past BatchPendingAge at now.
func dropOld(ctx context.Context, s BatchStore, now time.Time) error {
	_, err := s.DropBatchRequests(ctx, now.Add(-BatchPendingAge).UnixMilli())
	return err
}
