// Package ask is one LLM turn over a stored conversation: its view and a
// new user message rendered into the provider's request body (pkg/format),
// sent through an injected transport (pkg/llm), the answer parsed and
// checked against the answer schema, and the user message and the answer
// appended together in one transaction once the answer is known good. A
// failed, incomplete or invalid answer stores nothing (unless
// Turn.KeepInvalid).
package ask

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Store is the part of a store a turn needs; store.Store is one.
type Store interface {
	ViewStore
	// Schema returns the conversation's stored answer schema; ok is false
	// when it has none.
	Schema(ctx context.Context, conv string) (sc store.ConversationSchema, ok bool, err error)
	// AppendAfter adds the records of recs to conv in one transaction,
	// applying the transcript rules, if last is still conv's last record:
	// all or nothing, store.ErrConflict when another writer changed it.
	AppendAfter(ctx context.Context, conv string, last store.Last, ids *transcript.IDs, recs transcript.Stream) (store.AppendResult, error)
	// RateSlot reserves the next slot of the limiter key, shared by every
	// process on the store, and says when it starts.
	RateSlot(ctx context.Context, key string, interval time.Duration) (time.Time, error)
}

// Transport sends one request body to the provider; an llm.Transport is
// one. It must call Limit before every attempt for Turn.Rate to apply (see
// Limit).
type Transport interface {
	Send(ctx context.Context, c llm.Call) (llm.Reply, error)
}

// Turn is one question to ask.
type Turn struct {
	Conversation string
	// Request shapes the body: Provider, Model (required), System (nil:
	// the stored prompt), MaxTokens, Temperature, Tools, Lenient and Warn.
	// Run sets Body, Stream (from OnText) and the schema.
	Request format.Request
	// Contents is the new user message, one content string each; none
	// answers the stored conversation as it stands, which must then end
	// with a user message or tool results.
	Contents []string
	// Schema is this call's answer schema; nil takes the conversation's
	// stored one, unless NoSchema.
	Schema   *Schema
	NoSchema bool
	// KeepInvalid stores an answer that does not match the schema anyway
	// (Result.Invalid says why it does not).
	KeepInvalid bool
	// OnText, when set, streams the answer: each piece of its text as it
	// arrives. What is stored does not depend on it.
	OnText func(text string)
	// Rate spaces the requests to this provider and model at least this
	// far apart, across every process on the store; 0 does not.
	Rate time.Duration
	// KeepRaw, when set, is the directory every response body received is
	// written under (see writeRaw), stored or not; Agent names the files
	// ("" for PROVIDER-MODEL). A body that cannot be written is reported
	// in Result.RawErr and changes nothing else.
	KeepRaw, Agent string
}

// Result is what a turn stored.
type Result struct {
	// User is the new user record, nil when the turn had none.
	User   *transcript.Record
	Answer transcript.Record
	// Invalid is why the answer does not match the schema, when
	// KeepInvalid stored it anyway.
	Invalid error
	// LLMStart and LLMEnd (ms) are when the call's first attempt began,
	// after any rate wait, and when its answer arrived.
	LLMStart, LLMEnd int64
	// RawErr is why the response body could not be kept (Turn.KeepRaw).
	// It never stops the turn: the answer was paid for.
	RawErr error
}

// RequestError is a turn that cannot be asked as given: a request no
// provider body can carry, no model, or nothing to answer. Nothing was
// sent or stored.
type RequestError struct{ Err error }

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// Asker runs turns; it holds what they share.
type Asker struct {
	IDs *transcript.IDs
	Now func() time.Time
	// Sleep waits d or until ctx ends, for a rate slot; nil waits for real.
	Sleep func(ctx context.Context, d time.Duration) error
	// Guard, when set, readies each record for the store (the user
	// message and the answer) or refuses it: convo's hides the provider
	// keys it holds. A refusal stores nothing.
	Guard func(*transcript.Record) error
}

// Run asks one turn: it renders the body, sends it through t, parses and
// checks the answer, and appends the user message and the answer to the
// conversation in one transaction. Errors: *RequestError; the store's;
// the transport's (a *format.ProviderError, the context's), an incomplete
// answer (wrapping *format.IncompleteError) and a reply that is not the
// provider's answer, each noting that nothing was stored; and a
// *transcript.InputError for an answer that does not match the schema
// (unless KeepInvalid).
func (a *Asker) Run(ctx context.Context, s Store, t Transport, turn Turn) (Result, error) {
	var res Result
	req := turn.Request
	req.Body, req.Stream = true, turn.OnText != nil
	if req.Model == "" {
		return res, &RequestError{fmt.Errorf("%s: no model", req.Provider)}
	}
	sch, err := a.schema(ctx, s, &turn)
	if err != nil {
		return res, err
	}
	if sch != nil {
		req.Schema, req.SchemaName = sch.Body, sch.Name
	}
	if err := req.Check(); err != nil {
		return res, &RequestError{err}
	}
	now := a.Now().UnixMilli()
	if res.User, err = a.question(turn, now); err != nil {
		return res, err
	}
	body, betas, end, err := a.body(ctx, s, turn.Conversation, res.User, req)
	if err != nil {
		return res, err
	}

	c := &call{s: s, key: llm.RateKey(req.Provider, req.Model), interval: turn.Rate, now: a.Now, sleep: a.Sleep}
	reply, err := t.Send(context.WithValue(ctx, callKey{}, c), llm.Call{Model: req.Model, Body: body, Betas: betas, OnText: turn.OnText})
	res.LLMEnd = a.Now().UnixMilli()
	if err != nil {
		return res, fmt.Errorf("%w; nothing was stored", err)
	}
	if res.LLMStart = c.start.Load(); res.LLMStart == 0 {
		res.LLMStart = now // the transport calls no Limit
	}
	if turn.KeepRaw != "" {
		res.RawErr = a.keepRaw(turn, req, reply.Body)
	}

	if res.Answer, err = a.answer(req.Provider, reply.Body, now); err != nil {
		return res, err
	}
	ans := &res.Answer
	ans.ID = a.IDs.New(res.LLMEnd)
	ans.Conversation = turn.Conversation
	ans.Metadata.Timing.Creation = res.LLMEnd
	timed := res.User
	if timed == nil {
		timed = ans
	}
	_ = timed.Metadata.Timing.Set("llmStart", res.LLMStart)
	_ = timed.Metadata.Timing.Set("llmEnd", res.LLMEnd)

	if sch != nil {
		if ans.Metadata.Aux == nil {
			ans.Metadata.Aux = map[string]json.RawMessage{}
		}
		ans.Metadata.Aux["schema"] = transcript.AppendString(nil, sch.Name)
		if res.Invalid = sch.check(ans); res.Invalid != nil && !turn.KeepInvalid {
			return res, fmt.Errorf("%w\nnothing was stored (--keep-invalid stores it anyway)", res.Invalid)
		}
	}

	return res, a.appendTurn(ctx, s, turn.Conversation, end, res.User, ans)
}

// question is the user record of turn, created at now, or nil when the turn
// asks nothing new. A question the store would refuse is refused before it
// is paid for.
func (a *Asker) question(turn Turn, now int64) (*transcript.Record, error) {
	if len(turn.Contents) == 0 {
		return nil, nil
	}
	u := &transcript.Record{
		ID:           a.IDs.New(now),
		Conversation: turn.Conversation,
		Message:      transcript.Message{Role: transcript.RoleUser, Contents: turn.Contents},
		Metadata:     transcript.Metadata{Timing: transcript.Timing{Creation: now}},
	}
	if err := transcript.CheckSize(u); err != nil {
		return nil, err
	}
	return u, nil
}

// keepRaw writes the response body under --keep-raw's directory; its error
// does not fail the turn.
func (a *Asker) keepRaw(turn Turn, req format.Request, body []byte) error {
	agent := turn.Agent
	if agent == "" {
		agent = req.Provider + "-" + req.Model
	}
	if err := writeRaw(turn.KeepRaw, turn.Conversation, agent, a.Now(), body); err != nil {
		return fmt.Errorf("--keep-raw: the response body was not kept: %w", err)
	}
	return nil
}

// appendTurn appends the question (if any) and the answer after end, once the
// guard passed both. Stored as asked or not at all: had another writer
// appended while the provider answered, the question would merge into its
// message and the answer read as replying to both.
func (a *Asker) appendTurn(ctx context.Context, s Store, conv string, end store.Last, user, ans *transcript.Record) error {
	if a.Guard != nil {
		for _, r := range []*transcript.Record{user, ans} {
			if r == nil {
				continue
			}
			if err := a.Guard(r); err != nil {
				return fmt.Errorf("%w; nothing was stored", err)
			}
		}
	}
	recs := make([]transcript.Record, 0, 2)
	if user != nil {
		recs = append(recs, *user)
	}
	recs = append(recs, *ans)
	if _, err := s.AppendAfter(ctx, conv, end, a.IDs, transcript.Slice(recs...)); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("%w while the provider answered; the turn was not stored (ask again on the conversation as it is now)", err)
		}
		return err
	}
	return nil
}

// body renders the request body in one pass: the stored view, then the
// new user message. Without one, the view must end with a message to
// answer. betas are the anthropic-beta values the body needs (a
// compaction block sent back).
func (a *Asker) body(ctx context.Context, s ViewStore, conv string, user *transcript.Record, req format.Request) (body []byte, betas []string, end store.Last, err error) {
	var buf bytes.Buffer
	r, last, end, err := openView(ctx, s, conv, &buf, req)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, nil, end, err // a conversation not stored yet is an empty one
	}
	switch {
	case user != nil:
		if err := r.Add(user); err != nil {
			return nil, nil, end, err
		}
	case last == "":
		return nil, nil, end, &RequestError{fmt.Errorf("nothing to ask: conversation %q has no message to answer; give TEXT or - to read it on stdin", conv)}
	case last != transcript.RoleUser && last != transcript.RoleTool:
		return nil, nil, end, &RequestError{fmt.Errorf("nothing to ask: conversation %q ends with an answer; give TEXT or - to read it on stdin", conv)}
	}
	if err := r.Close(); err != nil {
		return nil, nil, end, err
	}
	return buf.Bytes(), r.Betas(), end, nil
}

// incompleteError is an answer cut short or refused, never stored.
type incompleteError struct{ e *format.IncompleteError }

func (e *incompleteError) Error() string {
	return fmt.Sprintf("%s answer incomplete: %s; nothing was stored", e.e.Provider, e.e.Detail())
}
func (e *incompleteError) Unwrap() error { return e.e }

// answer reads the response body into the answer record. A body that is
// not the provider's answer is the provider's failure here, not bad input:
// the user did not write it (format.ParseReply).
func (a *Asker) answer(provider string, body []byte, now int64) (transcript.Record, error) {
	newID := func() string { return "call_" + a.IDs.New(now) }
	ans, err := format.ParseReply(provider, body, newID)
	var inc *format.IncompleteError
	switch {
	case errors.As(err, &inc):
		return transcript.Record{}, &incompleteError{inc}
	case err != nil:
		return transcript.Record{}, fmt.Errorf("%w; nothing was stored", err)
	}
	rec := ans.Record
	format.UnwrapAnswer(provider, &rec)
	return rec, nil
}
