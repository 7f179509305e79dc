package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/endless"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// seedFixed stores conv with n alternating messages of fixed ids, so that
// two stores hold the same conversation.
func seedFixed(t *testing.T, s store.Store, conv string, n int) {
	t.Helper()
	recs := make([]transcript.Record, n)
	for j := range recs {
		i := j + 1
		recs[j] = transcript.Record{ID: fmt.Sprintf("01JRZJ166J2WRMF990535EVS%02d", i), Message: transcript.Message{Role: []transcript.Role{"user", "assistant"}[(i-1)%2],
			Contents: []string{fmt.Sprintf("turn %d: the Lisbon trip, order #%d.", i, 4000+i)}}}
	}
	_, err := s.Append(context.Background(), conv, transcript.NewIDs(), transcript.Slice(recs...))
	if err != nil {
		t.Fatal(err)
	}
}

// summaryOf is conv's summary record with its id and creation time
// blanked: what is left must not depend on how it was made.
func summaryOf(t *testing.T, s store.Store, conv string) string {
	t.Helper()
	for _, line := range strings.Split(dump(t, s, conv), "\n") {
		var rec transcript.Record
		if line == "" || json.Unmarshal([]byte(line), &rec) != nil || rec.Message.Role != transcript.RoleSummary {
			continue
		}
		rec.ID, rec.Metadata.Timing.Creation = "", 0
		b, _ := json.Marshal(rec)
		return string(b)
	}
	t.Fatalf("%s has no summary:\n%s", conv, dump(t, s, conv))
	return ""
}

// TestBatchSameAsLive: for each batch API, the request line carries the
// body a live summarize sends, and the summary its result stores is the
// one the live call stores.
func TestBatchSameAsLive(t *testing.T) {
	answer := &providertest.Answer{Text: "The user planned a Lisbon trip and placed orders."}
	for _, provider := range BatchProviders() {
		t.Run(provider, func(t *testing.T) {
			opt := Options{KeepLast: 1, Counter: counter(t)}
			now := func() time.Time { return time.UnixMilli(1744815900000) }

			live, batch := openStore(t), openStore(t)
			seedFixed(t, live, "c", 6)
			seedFixed(t, batch, "c", 6)
			srv := providertest.Start(providertest.Options{Key: "sk-batch-test-key", Steps: []providertest.Step{{Answer: answer}}})
			defer srv.Close()
			tr, err := llm.New(provider, llm.Options{APIKey: "sk-batch-test-key", BaseURL: srv.BaseURL(provider)})
			if err != nil {
				t.Fatal(err)
			}
			r := &Runner{Options: opt, Summarizer: &LLM{Transport: tr}, IDs: transcript.NewIDs(), Now: now}
			if _, err := r.Run(context.Background(), live, "c"); err != nil {
				t.Fatal(err)
			}

			var requests bytes.Buffer
			tally, err := BatchOut(context.Background(), batch, opt, BatchOutOptions{Provider: provider}, &requests)
			if err != nil || tally.Requests != 1 {
				t.Fatalf("%v %+v", err, tally)
			}
			var line map[string]json.RawMessage
			if err := json.Unmarshal(requests.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			body := line["body"]
			if provider == "anthropic" {
				body = line["params"]
			}
			if sent := srv.Requests()[0].Raw; !jsonEqual(t, body, []byte(sent)) {
				t.Errorf("batch body %s\nlive body  %s", body, sent)
			}
			if dump(t, batch, "c") != dump(t, live, "c") && strings.Contains(dump(t, batch, "c"), `"summary"`) {
				t.Fatal("--batch-out stored something")
			}

			results, err := providertest.BatchResults(requests.Bytes(), func(int, string) providertest.BatchReply { return providertest.BatchReply{Answer: answer} })
			if err != nil {
				t.Fatal(err)
			}
			// No options but the tokenizer: the request's, recorded, are used.
			in := BatchInOptions{Options: Options{Counter: opt.Counter}, IDs: transcript.NewIDs(), Now: now}
			if tally, err := BatchIn(context.Background(), batch, bytes.NewReader(results), in); err != nil || tally.Stored != 1 || tally.Unrecorded != 0 {
				t.Fatalf("%v %+v", err, tally)
			}
			if p := pending(t, batch); len(p) != 0 {
				t.Errorf("applied, still pending: %v", p)
			}
			if got, want := summaryOf(t, batch, "c"), summaryOf(t, live, "c"); got != want {
				t.Errorf("batch summary %s\nlive summary  %s", got, want)
			}
			// Applied twice: nothing more.
			before := dump(t, batch, "c")
			if tally, err := BatchIn(context.Background(), batch, bytes.NewReader(results), in); err != nil || tally.Already != 1 || tally.Stored != 0 {
				t.Fatalf("again: %v %+v", err, tally)
			}
			if dump(t, batch, "c") != before {
				t.Error("the second application changed the conversation")
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("not JSON: %s / %s", a, b)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// TestBatchID: custom_ids fit both providers' rules whatever the
// conversation's id, and read back as written.
func TestBatchID(t *testing.T) {
	anthropicID := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, conv := range []string{"c", strings.Repeat("ü/x y", 51), "a_b_c"} {
		for _, api := range batchAPIs {
			id := batchID{api: api, conv: shortHash(conv), readSeq: 1<<63 - 1, covered: shortHash("r01", "r02")}
			s := id.String()
			if !anthropicID.MatchString(s) || len(s) > 50 {
				t.Errorf("%q: %d characters", s, len(s))
			}
			if back, err := parseBatchID(s); err != nil || back != id {
				t.Errorf("%q read back as %+v, %v", s, back, err)
			}
		}
	}
	for _, bad := range []string{"", "request-1", "x1_0123456789abcdef_1_0123456789abcdef", "a1_0123456789abcdef_-1_0123456789abcdef", "a1_0123_1_0123456789abcdef"} {
		if _, err := parseBatchID(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestBatchResultLines: each result shape of both APIs, as their docs show
// them, is read as a summary or as the reason there is none.
func TestBatchResultLines(t *testing.T) {
	a := batchID{api: batchAPIs[1], conv: shortHash("c"), readSeq: 7, covered: shortHash("r01")}.String()
	o := batchID{api: batchAPIs[0], conv: shortHash("c"), readSeq: 7, covered: shortHash("r01")}.String()
	for _, tc := range []struct {
		line, text, status, err string
	}{
		{`{"custom_id":"` + a + `","result":{"type":"succeeded","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"Gist."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":2}}}}`, "Gist.", "", ""},
		{`{"custom_id":"` + a + `","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}}}`, "", "errored", "max_tokens: Field required"},
		{`{"custom_id":"` + a + `","result":{"type":"expired"}}`, "", "expired", "the batch ended"},
		{`{"custom_id":"` + a + `","result":{"type":"canceled"}}`, "", "canceled", "canceled"},
		{`{"custom_id":"` + a + `","result":{"type":"succeeded","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Gi"}],"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":2}}}}`, "", "errored", "max_tokens"},
		{`{"id":"batch_req_1","custom_id":"` + o + `","response":{"status_code":200,"request_id":"req_1","body":{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"Gist."},"finish_reason":"stop"}]}},"error":null}`, "Gist.", "", ""},
		{`{"id":"batch_req_1","custom_id":"` + o + `","response":{"status_code":400,"request_id":"req_1","body":{"error":{"message":"Invalid model","type":"invalid_request_error"}}},"error":null}`, "", "errored", "HTTP 400: Invalid model"},
		{`{"id":"batch_req_1","custom_id":"` + o + `","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}`, "", "expired", "batch_expired"},
	} {
		e, err := readBatchResult([]byte(tc.line))
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if e.out.Text != tc.text || e.status != tc.status || (tc.err == "") != (e.errored == nil) || e.errored != nil && !strings.Contains(e.errored.Error(), tc.err) {
			t.Errorf("%s: text %q, status %q, %v", tc.line, e.out.Text, e.status, e.errored)
		}
	}
	// An OpenAI line under an Anthropic custom_id is no result of ours.
	if _, err := readBatchResult([]byte(`{"custom_id":"` + a + `","response":{"status_code":200,"body":{}}}`)); err == nil {
		t.Error("mismatched format: no error")
	}
	// A bad line fails the whole file, naming the line, before anything is stored.
	_, err := readBatchResults(strings.NewReader(`{"custom_id":"` + a + `","result":{"type":"expired"}}` + "\n\nnot json\n"))
	var ie *transcript.InputError
	if !errors.As(err, &ie) || ie.Line != 3 {
		t.Errorf("bad line: %v", err)
	}
}

// TestBatchInChanged: a conversation changed since the request (a covered
// record annotated, a summary of more made live, the conversation cleared)
// is skipped and named; records appended after what the request covers
// change nothing; a live summary of the same records stands for this one.
func TestBatchInChanged(t *testing.T) {
	opt := Options{KeepLast: 1, Counter: counter(t)}
	s := openStore(t)
	for _, c := range []string{"appended", "annotated", "live", "same", "gone"} {
		seedFixed(t, s, c, 6)
	}
	var requests bytes.Buffer
	if _, err := BatchOut(context.Background(), s, opt, BatchOutOptions{Provider: "openai", Model: "gpt-4o-mini"}, &requests); err != nil {
		t.Fatal(err)
	}
	results, err := providertest.BatchResults(requests.Bytes(), func(int, string) providertest.BatchReply {
		return providertest.BatchReply{Answer: &providertest.Answer{Text: "The gist."}}
	})
	if err != nil {
		t.Fatal(err)
	}
	seedMore := func(conv string) {
		more := transcript.Record{Message: transcript.Message{Role: "user", Contents: []string{"one more question"}}}
		_, err := s.Append(context.Background(), conv, transcript.NewIDs(), transcript.Slice(more))
		if err != nil {
			t.Fatal(err)
		}
	}
	seedMore("appended")
	if _, err := s.Annotate(context.Background(), "annotated", "01JRZJ166J2WRMF990535EVS02", &transcript.Annotation{Aux: map[string]json.RawMessage{"note": json.RawMessage(`"x"`)}}); err != nil {
		t.Fatal(err)
	}
	more := newRunner(t, &fake{})
	more.Options.KeepLast = 0
	if _, err := more.Run(context.Background(), s, "live"); err != nil {
		t.Fatal(err)
	}
	if _, err := newRunner(t, &fake{}).Run(context.Background(), s, "same"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Clear(context.Background(), "gone"); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	tally, err := BatchIn(context.Background(), s, bytes.NewReader(results), BatchInOptions{Options: opt, Done: func(o BatchOutcome) {
		got[o.Conversation] = o.Status
	}})
	if !errors.Is(err, ErrFailed) || tally.Stored != 1 || tally.Changed != 3 || tally.Already != 1 {
		t.Fatalf("%v %+v: want ErrFailed for the changed ones", err, tally)
	}
	if got["appended"] != "stored" || got["annotated"] != "changed" || got["live"] != "changed" || got["same"] != "already summarized" || got[""] != "changed" {
		t.Errorf("%v", got)
	}
}

// FuzzBatchResults: any result file is entries or an input error naming a
// line, never a panic; every entry is a summary or a reason, not both.
func FuzzBatchResults(f *testing.F) {
	a := batchID{api: batchAPIs[1], conv: shortHash("c"), readSeq: 7, covered: shortHash("r01")}.String()
	o := batchID{api: batchAPIs[0], conv: shortHash("c"), readSeq: 7, covered: shortHash("r01")}.String()
	f.Add(`{"custom_id":"` + a + `","result":{"type":"succeeded","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"Gist."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}}}`)
	f.Add(`{"custom_id":"` + a + `","result":{"type":"expired"}}` + "\n\n" + `{"custom_id":"` + a + `","result":{"type":"canceled"}}`)
	f.Add(`{"id":"b","custom_id":"` + o + `","response":{"status_code":200,"body":{"choices":[{"index":0,"message":{"role":"assistant","content":"Gist."},"finish_reason":"stop"}]}},"error":null}`)
	f.Add(`{"id":"b","custom_id":"` + o + `","response":null,"error":{"code":"batch_expired","message":"late"}}`)
	f.Add("not json\n")
	f.Fuzz(func(t *testing.T, file string) {
		entries, err := readBatchResults(strings.NewReader(file))
		if err != nil {
			var ie *transcript.InputError
			if !errors.As(err, &ie) || ie.Line < 1 {
				t.Fatalf("%v: want an input error naming a line", err)
			}
			return
		}
		for _, e := range entries {
			if (e.errored == nil) == (e.status != "") || (e.errored == nil && e.out.Text == "") {
				t.Fatalf("line %d: text %q, status %q, error %v", e.line, e.out.Text, e.status, e.errored)
			}
		}
	})
}

// A result line past maxResultLine is refused once it is that long, not
// read to its end first.
func TestBatchResultLineBounded(t *testing.T) {
	r := &endless.Line{Max: 8 * maxResultLine}
	_, err := readBatchResults(r)
	var ie *transcript.InputError
	if !errors.As(err, &ie) || ie.Line != 1 {
		t.Fatalf("err = %v, want line 1 refused", err)
	}
	if r.N > 2*maxResultLine {
		t.Errorf("read %d bytes of a line refused past %d", r.N, maxResultLine)
	}
}
