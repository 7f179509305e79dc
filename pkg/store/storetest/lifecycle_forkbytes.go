package storetest

// A fork's bodies byte for byte: each backend may rewrite them its own way
// (Go, or the database's JSON functions), and every one must write what
// transcript.ForkAs and AppendJSON write.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestForkBodyBytes forks a transcript whose records hold what a body
// rewrite in SQL could get wrong: aux keys sorting on either side of
// forkedFrom (bytes, not letters), a forkedFrom already there, keys that
// need escapes, provider items and aux values holding "metadata" and
// "aux" keys of their own, a placeholder's attribute, extra timing keys,
// tool calls, and a summary whose summaryIds hold an id of its source and
// one of no record. Every copy's body is the bytes ForkAs's record encodes
// to, at every fork point.
func (x suite) TestForkBodyBytes(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	aux := map[string]json.RawMessage{
		"a": json.RawMessage(`1`), "Z": json.RawMessage(`"up"`), "fo": json.RawMessage(`[1,{"metadata":{"aux":{}}}]`),
		"forkedFrom": json.RawMessage(`"01JOLDOLDOLDOLDOLDOLDOLDOL"`), "forkedFromX": json.RawMessage(`{"a":"b"}`),
		"k\"q\\\n\t\x01\u2028é": json.RawMessage(`"v\u2028"`), "é": json.RawMessage(`true`), "~": json.RawMessage(`null`),
	}
	item := json.RawMessage(`{"type":"reasoning","metadata":{"timing":{"creation":1}},"aux":{"forkedFrom":"x"}}`)
	calls := []transcript.ToolCall{{ID: "call_1", Name: "lookup", Arguments: `{"q":"a\tb"}`}}
	recs := []transcript.Record{
		// First an assistant: the rules put a placeholder with its
		// attribute before it.
		{Message: transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"hi \"there\"\n"},
			ProviderData: []transcript.ProviderItem{{Provider: "openai", Item: item}}},
			Metadata: transcript.Metadata{Aux: aux}},
		exportMsg(transcript.RoleUser, "line one\nline two", "\\ and \u2028"),
		{Message: transcript.Message{Role: transcript.RoleAssistant, ToolCalls: calls}},
		{Message: transcript.Message{Role: transcript.RoleTool, Contents: []string{"42"}, ToolCallID: "call_1", Name: "lookup"},
			Metadata: transcript.Metadata{Aux: map[string]json.RawMessage{"forkedFrom": json.RawMessage(`"x"`)}}},
		exportMsg(transcript.RoleAssistant, "done"),
	}
	for i := range recs {
		recs[i].Metadata.Timing.Creation = int64(1700000000000 + i)
	}
	lcMust(t, recs[1].Metadata.Timing.Set("playStart", 1700000000005))
	exportAppend(t, s, ids, "src", recs...)
	stored := forkRawBodies(t, s, "src")
	covered := []string{stored[0].ID, stored[1].ID, ids.New(1700000000000)}
	exportInsertSummary(t, s, ids, "src", stored[2].ID, covered, false)
	exportAppend(t, s, ids, "src", exportMsg(transcript.RoleUser, "after the summary"))
	stored = forkRawBodies(t, s, "src")
	for i, at := range stored {
		dst := fmt.Sprintf("bytes-%d", i)
		if fakeBody(t, at.body) {
			lcRefusesCutAt(t, s, "src", at.ID, dst, ids)
			continue
		}
		_, err := s.Fork(ctx, "src", dst, store.ForkOptions{At: at.ID}, ids)
		lcMust(t, err)
		got := forkRawBodies(t, s, dst)
		if len(got) != i+1 {
			t.Fatalf("%s: %d records, want %d", dst, len(got), i+1)
		}
		newIDs := map[string]string{}
		for j, r := range got {
			newIDs[stored[j].ID] = r.ID
		}
		for j, r := range got {
			var src transcript.Record
			lcMust(t, json.Unmarshal(stored[j].body, &src))
			c := transcript.ForkAs(src, r.ID, dst, newIDs)
			if want := transcript.AppendJSON(nil, &c); !bytes.Equal(r.body, want) {
				t.Fatalf("%s[%d]: the body is\n%s\nwant\n%s", dst, j, r.body, want)
			}
		}
	}
}

type rawBody struct {
	ID   string
	body []byte
}

// forkRawBodies reads conv's bodies as stored.
// fakeBody reports whether body is a placeholder's.
func fakeBody(t testing.TB, body []byte) bool {
	t.Helper()
	var r transcript.Record
	lcMust(t, transcript.DecodeStored(body, &r))
	return r.IsFake()
}

func forkRawBodies(t testing.TB, s store.Store, conv string) []rawBody {
	t.Helper()
	var out []rawBody
	lcMust(t, s.Read(context.Background(), conv, store.ReadOptions{}, func(r store.Row) error {
		out = append(out, rawBody{ID: exportID(r.Body), body: bytes.Clone(r.Body)})
		return nil
	}))
	return out
}

// TestForkAtSizeLimit: a record just within the size limit is over it
// with forkedFrom, and its fork fails as the record-by-record fork says,
// whatever way the backend forks: nothing of the target is stored.
func (x suite) TestForkAtSizeLimit(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	r := exportMsg(transcript.RoleUser, "")
	r.Message.Contents[0] = string(bytes.Repeat([]byte("x"), transcript.MaxRecordBytes-transcript.RecordSize(&r)-8))
	if n := transcript.RecordSize(&r); n > transcript.MaxRecordBytes {
		t.Fatalf("the record is %d bytes", n)
	}
	exportAppend(t, s, ids, "big", exportMsg(transcript.RoleUser, "small"), exportMsg(transcript.RoleAssistant, "ok"), r)
	_, err := s.Fork(ctx, "big", "copy", store.ForkOptions{}, ids)
	var in *transcript.InputError
	if !errors.As(err, &in) {
		t.Fatalf("fork of a record at the limit: %v, want the record's InputError", err)
	}
	err = s.Read(ctx, "copy", store.ReadOptions{}, func(store.Row) error { return nil })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("read the target after the failed fork: %v, want ErrNotFound", err)
	}
	// Up to the record before it, the fork goes.
	stored := forkRawBodies(t, s, "big")
	_, err = s.Fork(ctx, "big", "copy", store.ForkOptions{At: stored[1].ID}, ids)
	lcMust(t, err)
}
