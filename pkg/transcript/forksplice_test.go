package transcript

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"
)

// forkByDecoding is what a fork did before the splice: decode the stored
// body, ForkAs, Validate, encode.
func forkByDecoding(body []byte, id, conv string) ([]byte, error) {
	var r Record
	if err := DecodeStored(body, &r); err != nil {
		return nil, err
	}
	c := ForkAs(r, id, conv, nil)
	if err := Validate(&c); err != nil {
		return nil, err
	}
	return AppendJSON(nil, &c), nil
}

// checkSplice holds AppendForked to forkByDecoding for the body of r, a
// valid record as stored; it reports whether the splice took the body.
func checkSplice(t *testing.T, r *Record, id, conv string) bool {
	t.Helper()
	body := AppendJSON(nil, r)
	want, err := forkByDecoding(body, id, conv)
	prefix := []byte("kept")
	got, ok := AppendForked(prefix, body, id, conv)
	switch {
	case !ok && !bytes.Equal(got, prefix):
		t.Fatalf("AppendForked(%s) refused but changed dst: %q", body, got)
	case ok && err != nil:
		t.Fatalf("AppendForked(%s, %q, %q) spliced a copy Validate refuses (%v): %s", body, id, conv, err, got)
	case ok && !bytes.Equal(got[len(prefix):], want):
		t.Fatalf("AppendForked(%s, %q, %q):\n got %s\nwant %s", body, id, conv, got[len(prefix):], want)
	}
	return ok
}

func TestAppendForked(t *testing.T) {
	const id = "01JRZJ166J2WRMF990535EVSQT"
	aux := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	records := storedSamples()
	for _, a := range []map[string]json.RawMessage{
		nil,
		aux("a", `1`),
		aux("z", `{"forkedFrom":"}"}`),
		aux("a", `[1,{"b":"x\\\"y"}]`, "zz", `null`),
		aux("forkedFrom", `"01JRZJ166J2WRMF990535EVSQS"`),
		aux("forkedFrom", `"x"`, "forkedFromX", `true`, "fork", `-1.5e3`),
		aux("é", `"\u2028"`, "A", `false`),
	} {
		r := Record{ID: "01JRZJ166J2WRMF990535EVSQS", Conversation: "c", Message: Message{Role: RoleUser, Contents: []string{`a "metadata":{} \`}},
			Metadata: Metadata{Attribute: []string{AttrMerged}, Timing: Timing{Creation: 5}, Aux: a}}
		records = append(records, r)
	}
	spliced := 0
	for _, r := range records {
		if Validate(&r) != nil {
			continue
		}
		for _, conv := range []string{"d", "with \"quote\" and \u2028", strings.Repeat("x", MaxConversationBytes+1), "nul\x00", "bad\xff"} {
			if checkSplice(t, &r, id, conv) {
				spliced++
			}
		}
		if checkSplice(t, &r, "not-a-ulid", "d") {
			t.Fatal("spliced with an id that is not a ULID")
		}
	}
	if spliced < 10 {
		t.Fatalf("the splice took only %d of the bodies", spliced)
	}
}

// A record near the size limit goes the decoding way, which sizes it.
func TestAppendForkedNearLimit(t *testing.T) {
	r := Record{ID: "01JRZJ166J2WRMF990535EVSQS", Conversation: "c", Message: Message{Role: RoleUser, Contents: []string{strings.Repeat("x", MaxRecordBytes-40)}}}
	if err := Validate(&r); err != nil {
		t.Fatal(err)
	}
	if checkSplice(t, &r, "01JRZJ166J2WRMF990535EVSQT", "d") {
		t.Fatal("spliced a record near the size limit")
	}
}

// FuzzAppendForked holds the splice equal to decode, ForkAs, Validate and
// encode for any valid record, whatever the new id and conversation.
func FuzzAppendForked(f *testing.F) {
	f.Add([]byte(`{"role":"user","content":"hi"}`), "d", uint64(1))
	f.Add([]byte(`{"message":{"role":"summary","contents":["s"]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSQS"],"aux":{"a":[1,{"b":null}],"forkedFrom":"x","z":"}"}}}`), "e\"", uint64(2))
	f.Add([]byte(`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"demo","message":{"role":"assistant","contents":[],"tool_calls":[{"id":"1","name":"f","arguments":"{\"a\":\"]\"}"}]},"metadata":{"attribute":["merged"],"timing":{"creation":1744815823058,"llmEnd":3},"aux":{"g":{"h":"\\"}}}}`), "x", uint64(3))
	f.Fuzz(func(t *testing.T, line []byte, conv string, seed uint64) {
		r, err := ParseLine(line)
		if err != nil {
			return
		}
		if r.ID == "" {
			r.ID = "01JRZJ166J2WRMF990535EVSQS"
		}
		if r.Conversation == "" {
			r.Conversation = "c"
		}
		if Validate(&r) != nil {
			return // never stored
		}
		var u ulid.ULID
		binary.BigEndian.PutUint64(u[:8], seed)
		binary.BigEndian.PutUint64(u[8:], seed*0x9e3779b97f4a7c15)
		checkSplice(t, &r, u.String(), conv)
	})
}
