package cmd

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// appendFrom runs append ARGS --from with body on stdin.
func appendFrom(t *testing.T, f *Factory, body string, args ...string) error {
	t.Helper()
	f.IO.In = strings.NewReader(body)
	return appendRun(context.Background(), appendOpts(t, f, args...))
}

// storedIDs returns the ids of conv's records, in order.
func storedIDs(t *testing.T, f *Factory, conv string) []string {
	t.Helper()
	s, err := f.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	err = s.Read(context.Background(), conv, store.ReadOptions{}, func(row store.Row) error {
		var r transcript.Record
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return err
		}
		ids = append(ids, r.ID)
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return ids
}

// A body that holds no answer is bad input, exit 3 naming what is missing,
// for every provider alike, --allow-incomplete or not; nothing is stored
// (issue 27 item 14: {} on anthropic was exit 1, and stored an empty
// record with --allow-incomplete).
func TestAppendFromEmptyBody(t *testing.T) {
	empty := map[string]string{
		"openai":           `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}`,
		"openai-responses": `{"id":"r","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}`,
		"anthropic":        `{"type":"message","id":"m","stop_reason":"end_turn","content":[]}`,
		"gemini":           `{"candidates":[{"finishReason":"SAFETY"}],"responseId":"r"}`,
		"bedrock":          `{"output":{"message":{"content":[]}},"stopReason":"max_tokens"}`,
		"ollama":           `{"model":"m","message":{"content":""},"done":true,"done_reason":"stop"}`,
	}
	missing := map[string]string{"openai": "choices", "openai-responses": "output", "anthropic": "content",
		"gemini": "candidates", "bedrock": "output", "ollama": "message"}
	for _, p := range format.Names(format.CanParse) {
		for _, body := range []string{`{}`, empty[p]} {
			for _, flags := range [][]string{{"-c", "x"}, {"-c", "x", "--allow-incomplete"}, {"--allow-incomplete"}} {
				t.Run(p+" "+body+" "+strings.Join(flags, " "), func(t *testing.T) {
					if empty[p] == "" {
						t.Fatal("no empty body to try")
					}
					f, out, _ := testFactory(t, "")
					err := appendFrom(t, f, body, append(flags, "--from", p)...)
					if exitcode.Of(err) != exitcode.Input || !strings.Contains(err.Error(), "no ") || !strings.Contains(err.Error(), missing[p]) {
						t.Fatalf("err = %v (exit %d), want exit 3 naming %s", err, exitcode.Of(err), missing[p])
					}
					if out.Len() > 0 {
						t.Errorf("printed %s", out)
					}
					if ids := storedIDs(t, f, "x"); len(ids) > 0 {
						t.Errorf("stored %v", ids)
					}
				})
			}
		}
	}
}

// Arguments cut short with their answer are appended by no
// --allow-incomplete: no provider would take them back (item 19).
func TestAppendFromCutArguments(t *testing.T) {
	f, _, _ := testFactory(t, "")
	cut := `{"id":"c","choices":[{"message":{"content":"Let me look.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"city\":\"Par"}}]},"finish_reason":"length"}]}`
	err := appendFrom(t, f, cut, "-c", "x", "--from", "openai", "--allow-incomplete")
	if exitcode.Of(err) != exitcode.Input || !strings.Contains(err.Error(), `tool call "call_1"`) {
		t.Fatalf("err = %v (exit %d), want exit 3 naming the call", err, exitcode.Of(err))
	}
	whole := strings.Replace(cut, `\"Par`, `\"Paris\"}`, 1)
	if err := appendFrom(t, f, whole, "-c", "x", "--from", "openai", "--allow-incomplete"); err != nil {
		t.Fatal(err)
	}
}

// The id of an answer follows the rule for ids made from outside data
// (issue 27 item 21): its time part is the provider's creation time, or
// now, never before the conversation's last record; its random part a
// hash of the provider and the response id; a repeat is skipped.
func TestAppendFromID(t *testing.T) {
	const openaiBody = `{"id":"chatcmpl-1","created":CREATED,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}]}`
	random := func(provider, id string) []byte {
		h := sha256.Sum256([]byte(provider + "\x00" + id))
		return h[:10]
	}
	parse := func(t *testing.T, id string) ulid.ULID {
		t.Helper()
		u, err := ulid.ParseStrict(id)
		if err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		return u
	}
	now := int64(1744815823058) // testFactory's clock

	t.Run("the provider's time", func(t *testing.T) {
		f, _, _ := testFactory(t, "")
		// Created 10 s after the clock (the answer is later than all else).
		if err := appendFrom(t, f, strings.Replace(openaiBody, "CREATED", "1744815833", 1), "-c", "x", "--from", "openai"); err != nil {
			t.Fatal(err)
		}
		ids := storedIDs(t, f, "x")
		if len(ids) != 2 { // rule 2's placeholder, then the answer
			t.Fatalf("stored %v", ids)
		}
		u := parse(t, ids[1])
		if u.Time() != 1744815833000 || !slices.Equal(u[6:], random("openai", "chatcmpl-1")) {
			t.Errorf("id %s: time %d, random %x", ids[1], u.Time(), u[6:])
		}
	})

	t.Run("never before the last record", func(t *testing.T) {
		f, _, errOut := testFactory(t, "")
		if err := runCmd(t, f, "append", "-c", "x", "Hello"); err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(openaiBody, "CREATED", "1699896916", 1) // a replayed body of 2023
		for range 2 {
			if err := appendFrom(t, f, body, "-c", "x", "--from", "openai"); err != nil {
				t.Fatal(err)
			}
		}
		ids := storedIDs(t, f, "x")
		if len(ids) != 2 || !strings.Contains(errOut.String(), "already stored, skipped") {
			t.Fatalf("stored %v, stderr %q: want the question and one answer", ids, errOut)
		}
		u, q := parse(t, ids[1]), parse(t, ids[0])
		if u.Time() != q.Time()+1 || ids[1] <= ids[0] || !slices.Equal(u[6:], random("openai", "chatcmpl-1")) {
			t.Errorf("answer %s (time %d) after question %s (time %d)", ids[1], u.Time(), ids[0], q.Time())
		}
	})

	t.Run("now, and a repeat later", func(t *testing.T) {
		f, _, errOut := testFactory(t, "")
		if err := runCmd(t, f, "append", "-c", "x", "Hello"); err != nil {
			t.Fatal(err)
		}
		body := `{"type":"message","id":"msg_1","model":"claude","content":[{"type":"text","text":"Hi!"}],"stop_reason":"end_turn"}`
		f.Now = func() time.Time { return time.UnixMilli(now + 5000) }
		if err := appendFrom(t, f, body, "-c", "x", "--from", "anthropic"); err != nil {
			t.Fatal(err)
		}
		// A script retries a minute later: the same answer.
		f.Now = func() time.Time { return time.UnixMilli(now + 65000) }
		if err := appendFrom(t, f, body, "-c", "x", "--from", "anthropic"); err != nil {
			t.Fatal(err)
		}
		ids := storedIDs(t, f, "x")
		if len(ids) != 2 || !strings.Contains(errOut.String(), "already stored, skipped") {
			t.Fatalf("stored %v, stderr %q", ids, errOut)
		}
		if u := parse(t, ids[1]); u.Time() != uint64(now+5000) || !slices.Equal(u[6:], random("anthropic", "msg_1")) {
			t.Errorf("id %s: time %d", ids[1], u.Time())
		}
	})

	t.Run("a repeat of an answer merged away", func(t *testing.T) {
		f, out, errOut := testFactory(t, "")
		if err := runCmd(t, f, "append", "-c", "x", "Hello"); err != nil {
			t.Fatal(err)
		}
		a := `{"type":"message","id":"msg_A","content":[{"type":"text","text":"One."}],"stop_reason":"end_turn"}`
		b := strings.NewReplacer("msg_A", "msg_B", "One.", "Two.").Replace(a)
		for _, body := range []string{a, b, b, a} {
			if err := appendFrom(t, f, body, "-c", "x", "--from", "anthropic"); err != nil {
				t.Fatal(err)
			}
		}
		out.Reset()
		if err := runCmd(t, f, "get", "-c", "x"); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, `"contents":["One.","Two."]`) {
			t.Errorf("stored:\n%s\nstderr %s", got, errOut)
		}
	})

	t.Run("an answer stored before the rule", func(t *testing.T) {
		// append --from made ids with a zero time part: the same answer is
		// still known by its random part.
		f, _, errOut := testFactory(t, "")
		var old ulid.ULID
		copy(old[6:], random("openai", "chatcmpl-1"))
		stored := `{"role":"user","content":"Hello"}` + "\n" + `{"id":"` + old.String() + `","role":"assistant","content":"Hi!"}` + "\n"
		f.IO.In = strings.NewReader(stored)
		if err := appendRun(context.Background(), appendOpts(t, f, "-c", "x")); err != nil {
			t.Fatal(err)
		}
		if err := appendFrom(t, f, strings.Replace(openaiBody, "CREATED", "1744815833", 1), "-c", "x", "--from", "openai"); err != nil {
			t.Fatal(err)
		}
		if ids := storedIDs(t, f, "x"); len(ids) != 2 || !strings.Contains(errOut.String(), "already stored, skipped") {
			t.Errorf("stored %v, stderr %q", ids, errOut)
		}
	})

	t.Run("without -c", func(t *testing.T) {
		f, out, _ := testFactory(t, "")
		body := strings.Replace(openaiBody, "CREATED", "1744815833", 1)
		var printed []string
		for range 2 {
			out.Reset()
			if err := appendFrom(t, f, body, "--from", "openai"); err != nil {
				t.Fatal(err)
			}
			var r transcript.Record
			if err := transcript.DecodeStored([]byte(strings.TrimSpace(out.String())), &r); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			printed = append(printed, r.ID)
		}
		if printed[0] != printed[1] || parse(t, printed[0]).Time() != 1744815833000 {
			t.Errorf("ids %v: want one, of the body's time", printed)
		}
	})
}
