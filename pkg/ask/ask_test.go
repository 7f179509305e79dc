package ask

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

type (
	answer = providertest.Answer
	tcall  = providertest.Call
	step   = providertest.Step
)

// TestRunProviders drives Run through every callable provider's real
// transport against the fake server speaking its wire format. A success
// stores the user message and the answer; any failure stores nothing.
func TestRunProviders(t *testing.T) {
	paris := &answer{Text: "Paris is the capital of France."}
	weather := &answer{Calls: []tcall{{ID: "call_abc123", Name: "get_weather", Args: `{"location":"Paris","unit":"celsius"}`}}}
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			type tc struct {
				name  string
				steps []step
				opts  llm.Options
				turn  func(*Turn)
				err   string // a substring of the error; "" for success
				// check looks at a success (or an answer kept invalid).
				check func(t *testing.T, e *env, res Result)
			}
			withSchema := func(tr *Turn) { tr.Schema = mustSchema(t, "city", citySchema) }
			cases := []tc{
				{name: "plain answer", steps: []step{{Answer: paris}}, check: func(t *testing.T, e *env, res Result) {
					reqs := e.srv.Requests()
					if len(reqs) != 1 || !p.authOK(reqs[0].Header) {
						t.Fatalf("requests %d, auth headers %v", len(reqs), reqs[0].Header)
					}
					for _, want := range []string{"You are terse.", "Earlier question about Lisbon", "Earlier answer about Lisbon", cityQuestion} {
						if !strings.Contains(reqs[0].Raw, want) {
							t.Errorf("request lacks %q: %s", want, reqs[0].Raw)
						}
					}
					if reqs[0].Stream || reqs[0].Model != p.modelName() && p.name != "gemini" {
						t.Errorf("stream %v, model %q: %s %s", reqs[0].Stream, reqs[0].Model, reqs[0].Path, reqs[0].Raw)
					}
					recs := e.records()
					user, ans := recs[len(recs)-2], recs[len(recs)-1]
					if user.Message.Role != "user" || user.Message.Contents[0] != cityQuestion || user.ID != res.User.ID {
						t.Fatalf("user record: %+v", user)
					}
					start, ok1 := user.Metadata.Timing.Get("llmStart")
					end, ok2 := user.Metadata.Timing.Get("llmEnd")
					if !ok1 || !ok2 || start > end || start < user.Metadata.Timing.Creation || start != res.LLMStart || end != res.LLMEnd {
						t.Errorf("user timing: %+v, result %d..%d", user.Metadata.Timing, res.LLMStart, res.LLMEnd)
					}
					if ans.Message.Role != "assistant" || ans.Message.Contents[0] != paris.Text || ans.ID != res.Answer.ID || ans.Metadata.Timing.Creation != end {
						t.Fatalf("answer record: %+v", ans)
					}
					for _, k := range []string{"provider", "model", "finish_reason", "usage"} {
						if _, ok := ans.Metadata.Aux[k]; !ok {
							t.Errorf("answer aux lacks %s: %s", k, mustJSON(ans.Metadata.Aux))
						}
					}
				}},
				{name: "tool call answer", steps: []step{{Answer: weather}}, turn: func(tr *Turn) { tr.Request.Tools = weatherTools },
					check: func(t *testing.T, e *env, res Result) {
						if got := p.toolsSent(e.srv.Requests()[0].Body); !slices.Equal(got, []string{"get_weather"}) {
							t.Errorf("tools sent: %v", got)
						}
						ans := e.records()[4]
						if len(ans.Message.ToolCalls) != 1 || ans.Message.ToolCalls[0].Name != "get_weather" ||
							ans.Message.ToolCalls[0].Arguments != `{"location":"Paris","unit":"celsius"}` || len(ans.Message.Contents) != 0 {
							t.Fatalf("answer: %s", mustJSON(ans))
						}
						if id := ans.Message.ToolCalls[0].ID; !p.idless && id != "call_abc123" || p.idless && !strings.HasPrefix(id, "call_") {
							t.Errorf("tool call id %q", id)
						}
					}},
				{name: "structured output valid", steps: []step{{Answer: &answer{Text: `{"city":"Paris","population":2102650}`, Structured: true}}}, turn: withSchema,
					check: func(t *testing.T, e *env, res Result) {
						sent := p.schemaSent(e.srv.Requests()[0].Body)
						if dig(sent, "title") != "City" || dig(sent, "$schema") != nil {
							t.Errorf("schema sent: %s in %s", mustJSON(sent), e.srv.Requests()[0].Raw)
						}
						ans := e.records()[4]
						if len(ans.Message.ToolCalls) != 0 || string(ans.Metadata.Aux["schema"]) != `"City"` ||
							!slices.Equal(ans.Message.Contents, []string{`{"city":"Paris","population":2102650}`}) {
							t.Errorf("answer: %s", mustJSON(ans))
						}
					}},
				{name: "structured output invalid", steps: []step{{Answer: &answer{Text: `{"city":"Paris","population":-3}`, Structured: true}}}, turn: withSchema,
					err: "/population"},
				{name: "structured output missing property", steps: []step{{Answer: &answer{Text: `{"town":"Paris"}`, Structured: true}}}, turn: withSchema,
					err: "missing propert"},
				{name: "structured output not JSON", steps: []step{{Answer: &answer{Text: "Paris, I think.", Structured: true}}}, turn: withSchema,
					err: "answer: not JSON, so it does not match the schema City"},
				{name: "structured output invalid, kept", steps: []step{{Answer: &answer{Text: `{"city":"Paris","population":-3}`, Structured: true}}},
					turn: func(tr *Turn) { withSchema(tr); tr.KeepInvalid = true },
					check: func(t *testing.T, e *env, res Result) {
						var ie *transcript.InputError
						if !errors.As(res.Invalid, &ie) || !strings.Contains(res.Invalid.Error(), "/population") {
							t.Errorf("Invalid: %v", res.Invalid)
						}
						if got := e.records()[4].Message.Contents; !slices.Equal(got, []string{`{"city":"Paris","population":-3}`}) {
							t.Errorf("kept answer %q", got)
						}
					}},
				{name: "429 with Retry-After, then success", steps: []step{{Status: 429, Header: map[string]string{"Retry-After": "1"}, Error: "Rate limit reached for requests"}, {Answer: paris}},
					check: func(t *testing.T, e *env, _ Result) {
						// Retry-After asks 1s; the policy caps any wait at 200ms.
						if n := len(e.srv.Requests()); n != 2 || !slices.Equal(e.delays, []time.Duration{200 * time.Millisecond}) {
							t.Errorf("%d requests, waits %v; want 2 and [200ms]", n, e.delays)
						}
					}},
				{name: "persistent 500", steps: []step{{Status: 500, Error: "The server had an error while processing your request."}}, err: "after 4 attempts"},
				{name: "timeout", steps: []step{{Hang: true}}, opts: llm.Options{Timeout: 100 * time.Millisecond}, err: "no response within 100ms"},
				{name: "streaming", steps: []step{{Answer: paris}}, check: func(t *testing.T, e *env, res Result) {
					if req := e.srv.Requests()[0]; !req.Stream {
						t.Errorf("no stream asked: %s %s", req.Path, req.Raw)
					}
					if got := e.records()[4].Message.Contents; !slices.Equal(got, []string{paris.Text}) {
						t.Errorf("stored %q", got)
					}
				}},
				{name: "streaming a tool call", steps: []step{{Answer: weather}}, turn: func(tr *Turn) { tr.Request.Tools = weatherTools },
					check: func(t *testing.T, e *env, _ Result) {
						ans := e.records()[4]
						if len(ans.Message.ToolCalls) != 1 || ans.Message.ToolCalls[0].Arguments != `{"location":"Paris","unit":"celsius"}` {
							t.Errorf("answer %s", mustJSON(ans))
						}
					}},
			}
			for _, reason := range p.cut {
				cases = append(cases, tc{name: "incomplete " + reason, steps: []step{{Answer: &answer{Text: "Paris is the cap", Finish: reason}}},
					err: p.name + " answer incomplete: finish reason " + reason + "; nothing was stored"})
			}
			if p.name == "openai" || p.name == "openai-responses" {
				cases = append(cases, tc{name: "refusal", steps: []step{{Answer: &answer{Refusal: "I'm sorry, I cannot help with that."}}},
					turn: withSchema, err: "finish reason refusal"})
			}
			if p.name == "gemini" {
				cases = append(cases, tc{name: "prompt blocked", steps: []step{{Answer: &answer{Blocked: "SAFETY"}}}, err: "blockReason SAFETY"})
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					e := newEnv(t, p, c.opts, c.steps...)
					e.seed()
					before := e.dump()
					turn := e.turn(cityQuestion)
					var streamed strings.Builder
					if strings.HasPrefix(c.name, "streaming") {
						turn.OnText = func(s string) { streamed.WriteString(s) }
					}
					if c.turn != nil {
						c.turn(&turn)
					}
					res, err := e.run(turn)
					after := e.dump()
					if err != nil && strings.Contains(err.Error(), testKey) || strings.Contains(after, testKey) {
						t.Fatalf("the key leaked: %v", err)
					}
					if c.err != "" {
						if err == nil || !strings.Contains(err.Error(), c.err) {
							t.Fatalf("error %v, want %q", err, c.err)
						}
						if after != before {
							t.Fatalf("a failed ask changed the store:\n%s", after)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if n := len(e.records()); n != 5 {
						t.Fatalf("want 5 records (system, 2 seeded, user, answer), got %d:\n%s", n, after)
					}
					if got := streamed.String(); turn.OnText != nil && got != strings.Join(res.Answer.Message.Contents, "") {
						t.Errorf("streamed %q, answer %q", got, res.Answer.Message.Contents)
					}
					c.check(t, e, res)
				})
			}
		})
	}
}

// The failures come typed: the caller maps them to exit codes.
func TestRunErrorTypes(t *testing.T) {
	p := providers[0]
	for _, tc := range []struct {
		step step
		turn func(*Turn)
		is   func(error) bool
	}{
		{step{Status: 401, Error: "bad key"}, nil, func(err error) bool {
			var pe *format.ProviderError
			return errors.As(err, &pe) && pe.Status == 401
		}},
		{step{Answer: &answer{Text: "cut", Finish: "length"}}, nil, func(err error) bool {
			var ie *format.IncompleteError
			return errors.As(err, &ie) && ie.Reason == "length"
		}},
		{step{Answer: &answer{Text: "Paris."}}, func(tr *Turn) { tr.Schema = mustSchema(t, "city", citySchema) }, func(err error) bool {
			var ie *transcript.InputError
			return errors.As(err, &ie) && ie.Field == "answer" && strings.Contains(err.Error(), "nothing was stored (--keep-invalid stores it anyway)")
		}},
		{step{}, func(tr *Turn) { tr.Request.Model = "" }, func(err error) bool {
			var re *RequestError
			return errors.As(err, &re) && strings.Contains(err.Error(), "no model")
		}},
		{step{}, func(tr *Turn) { tr.Request.Tools = []format.Tool{{Name: "no spaces please"}} }, func(err error) bool {
			var re *RequestError
			return errors.As(err, &re) && strings.Contains(err.Error(), "tool name")
		}},
	} {
		e := newEnv(t, p, llm.Options{Retry: llm.RetryPolicy{MaxAttempts: 1}}, tc.step)
		turn := e.turn("Hi")
		if tc.turn != nil {
			tc.turn(&turn)
		}
		_, err := e.run(turn)
		if !tc.is(err) {
			t.Errorf("%+v: error %v (%T)", tc.step, err, err)
		}
		if e.dump() != "" {
			t.Errorf("%+v stored %s", tc.step, e.dump())
		}
	}
}

// TestRunStreamStoresTheSame: the record stored after a streamed answer is
// the record stored after the same answer unstreamed.
func TestRunStreamStoresTheSame(t *testing.T) {
	answers := []answer{
		{Text: "Paris is the capital of France."},
		{Text: "Let me check.", Calls: []tcall{{ID: "call_1", Name: "get_weather", Args: `{"location":"Paris","unit":"celsius"}`}, {ID: "call_2", Name: "get_time", Args: `{"zone":"Europe/Paris"}`}}},
	}
	for _, p := range providers {
		for i, a := range answers {
			t.Run(fmt.Sprintf("%s/%d", p.name, i), func(t *testing.T) {
				var got [2]transcript.Record
				for j, stream := range []bool{false, true} {
					e := newEnv(t, p, llm.Options{}, step{Answer: &a})
					turn := e.turn("Question")
					var text strings.Builder
					if stream {
						turn.OnText = func(s string) { text.WriteString(s) }
					}
					res, err := e.run(turn)
					if err != nil {
						t.Fatal(err)
					}
					if stream && text.String() != a.Text {
						t.Errorf("streamed %q, want %q", text.String(), a.Text)
					}
					got[j] = e.records()[1]
					r := &got[j]
					if r.ID != res.Answer.ID {
						t.Errorf("stored %s, result %s", r.ID, res.Answer.ID)
					}
					r.ID, r.Metadata.Timing = "", transcript.Timing{}
					if p.idless {
						for k := range r.Message.ToolCalls {
							r.Message.ToolCalls[k].ID = ""
						}
					}
				}
				if !reflect.DeepEqual(got[0], got[1]) {
					t.Errorf("stored differently when streamed:\nplain  %s\nstream %s", mustJSON(got[0]), mustJSON(got[1]))
				}
			})
		}
	}
}

// TestRunContinuesAfterToolResults: without a new message, Run answers the
// stored conversation, which must end with a message to answer.
func TestRunContinuesAfterToolResults(t *testing.T) {
	p := providers[0]
	e := newEnv(t, p, llm.Options{}, step{Answer: &answer{Calls: []tcall{{ID: "call_1", Name: "get_weather", Args: `{"location":"Paris"}`}}}},
		step{Answer: &answer{Text: "It is 18°C in Paris."}})
	var re *RequestError
	if _, err := e.run(e.turn()); !errors.As(err, &re) || !strings.Contains(err.Error(), `nothing to ask: conversation "c" has no message to answer`) {
		t.Fatalf("empty conversation: %v", err)
	}
	turn := e.turn("Weather in Paris?")
	turn.Request.Tools = weatherTools
	if _, err := e.run(turn); err != nil {
		t.Fatal(err)
	}
	turn.Contents = nil
	if _, err := e.run(turn); !errors.As(err, &re) || !strings.Contains(err.Error(), `conversation "c" ends with an answer`) {
		t.Fatalf("asking again with unanswered tool calls: %v", err)
	}
	e.appendJSONL(`{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"{\"temp\":18}"}` + "\n")
	res, err := e.run(turn)
	if err != nil || res.User != nil || !slices.Equal(res.Answer.Message.Contents, []string{"It is 18°C in Paris."}) {
		t.Fatalf("%v %+v", err, res)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Raw, `"tool_call_id":"call_1"`) || !strings.Contains(reqs[1].Raw, `"tool_calls":[{"id":"call_1"`) {
		t.Errorf("history without the call and its result: %s", reqs[len(reqs)-1].Raw)
	}
	recs := e.records()
	last := recs[len(recs)-1]
	if len(recs) != 4 || last.Message.Role != "assistant" || last.Metadata.Timing.LLMStart == nil || last.Metadata.Timing.LLMEnd == nil {
		t.Errorf("records: %s", e.dump())
	}
}

// TestRunSystemOverride: Request.System replaces the stored prompt for the
// call; the stored one stays.
func TestRunSystemOverride(t *testing.T) {
	e := newEnv(t, providers[1], llm.Options{}, step{Answer: &answer{Text: "Ok."}})
	e.seed()
	turn := e.turn("Hi")
	turn.Request.System = []string{"Answer in French."}
	if _, err := e.run(turn); err != nil {
		t.Fatal(err)
	}
	raw := e.srv.Requests()[0].Raw
	if !strings.Contains(raw, `"system":[{"type":"text","text":"Answer in French."}]`) || strings.Contains(raw, "You are terse.") {
		t.Errorf("request: %s", raw)
	}
	if !strings.Contains(e.dump(), "You are terse.") {
		t.Error("the stored prompt is gone")
	}
}

// interleaved is a transport during whose call another writer appends.
type interleaved struct {
	llm.Transport
	during func()
}

func (t interleaved) Send(ctx context.Context, c llm.Call) (llm.Reply, error) {
	t.during()
	return t.Transport.Send(ctx, c)
}

// TestConcurrentWriterDuringCall: a user message another writer appends
// while the provider answers is not merged with the question, nor answered
// by the answer: the turn is not stored, the error says why (a conflict,
// exit 1), and the other writer's message stands alone.
func TestConcurrentWriterDuringCall(t *testing.T) {
	e := newEnv(t, providers[0], llm.Options{}, providertest.Step{Answer: &providertest.Answer{Text: "Sunny."}})
	e.seed()
	tr := interleaved{e.tr, func() { e.appendJSONL(`{"role":"user","content":"a message from another writer"}` + "\n") }}
	_, err := e.asker.Run(context.Background(), e.s, tr, e.turn("Weather in Lisbon?"))
	if !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "the turn was not stored") {
		t.Fatalf("ask during another write: %v, want a conflict that says nothing was stored", err)
	}
	var got []string
	e.s.Read(context.Background(), "c", store.ReadOptions{}, func(r store.Row) error {
		got = append(got, string(r.Body))
		return nil
	})
	last := got[len(got)-1]
	if len(got) != 4 || !strings.Contains(last, `"contents":["a message from another writer"]`) {
		t.Fatalf("stored after the conflict (%d records), last %s", len(got), last)
	}
	// Asked again on the conversation as it stands, the turn is stored.
	if _, err := e.run(e.turn("Weather in Lisbon?")); err != nil {
		t.Fatalf("asked again: %v", err)
	}
}

// TestRunProviderData: what a provider needs back verbatim (a reasoning
// item, a thinking block with its signature) is stored with the answer,
// streamed or not, and sent back to it on the next turn, in its place;
// another provider never sees it.
func TestRunProviderData(t *testing.T) {
	for _, name := range []string{"openai-responses", "anthropic"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", name, stream), func(t *testing.T) {
				p := providers[slices.IndexFunc(providers, func(p provider) bool { return p.name == name })]
				e := newEnv(t, p, llm.Options{}, step{Answer: &answer{Text: "Paris.", Thinking: "SIG-opaque-1"}}, step{Answer: &answer{Text: "Madrid."}})
				e.seed()
				turn := e.turn(cityQuestion)
				if stream {
					turn.OnText = func(string) {}
				}
				res, err := e.run(turn)
				if err != nil {
					t.Fatal(err)
				}
				data := res.Answer.Message.ProviderData
				if len(data) == 0 || data[0].Provider != name || data[0].At != 0 || !strings.Contains(string(data[0].Item), "SIG-opaque-1") ||
					strings.Contains(strings.Join(res.Answer.Message.Contents, ""), "SIG") {
					t.Fatalf("answer %s", mustJSON(res.Answer))
				}
				if _, err := e.run(e.turn("And of Spain?")); err != nil {
					t.Fatal(err)
				}
				raw := e.srv.Requests()[1].Raw
				if i, j := strings.Index(raw, "SIG-opaque-1"), strings.Index(raw, "Paris."); i < 0 || j < i {
					t.Errorf("the second request does not hold the item before the text: %s", raw)
				}
				var b strings.Builder
				if err := RenderView(context.Background(), e.s, "c", &b, format.Request{Provider: "gemini"}); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(b.String(), "SIG-opaque-1") {
					t.Errorf("sent to gemini: %s", b.String())
				}
			})
		}
	}
}

// TestRunRefusesOversizeQuestion: a question over the record size limit
// is refused before the provider is called (and paid): the store would
// refuse it after.
func TestRunRefusesOversizeQuestion(t *testing.T) {
	e := newEnv(t, providers[0], llm.Options{}, step{Answer: &answer{Text: "Fine."}})
	_, err := e.run(e.turn(strings.Repeat("x", transcript.MaxRecordBytes)))
	var ie *transcript.InputError
	if !errors.As(err, &ie) || ie.Field != "message.contents[0]" {
		t.Fatalf("err = %v, want the question refused for its size", err)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if e.dump() != "" {
		t.Errorf("stored %s", e.dump())
	}
}
