package transcript

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// storedSamples are canonical bodies covering every field AppendJSON writes.
func storedSamples() []Record {
	ms, ms2 := int64(7), int64(0)
	return []Record{
		{ID: "01JRZJ166J2WRMF990535EVSQS", Conversation: "c", Message: Message{Role: "user", Contents: []string{"plain", "esc \"q\" \\ / \n\r\t\b\f \u0001 é 👋🏽 \u2028 <&>"}},
			Metadata: Metadata{Attribute: []string{"merged", "merged"}, Timing: Timing{Creation: 1, LLMEnd: &ms, PlayStart: &ms2}, Aux: map[string]json.RawMessage{"x": json.RawMessage(`{"a":[1,"]}",{"b":null}],"c":true}`), "n": json.RawMessage(`-1.5e3`), "s": json.RawMessage(`"t\"x"`)}}},
		{ID: "b", Conversation: "c", Message: Message{Role: "assistant", Contents: []string{}, ToolCalls: []ToolCall{{ID: "1", Name: "f", Arguments: `{"k":"v\n"}`}, {ID: "2", Name: "g"}}}},
		{ID: "c", Conversation: "c", Message: Message{Role: "tool", Contents: []string{"r"}, ToolCallID: "1", Name: "f", IsError: true},
			Metadata: Metadata{Aux: map[string]json.RawMessage{"thought_signatures": json.RawMessage(`{"1":"c2ln"}`)}}},
		{ID: "d", Conversation: "other", Message: Message{Role: "summary", Contents: []string{"s"}},
			Metadata: Metadata{Attribute: []string{"fake"}, SummaryIDs: []string{"01JRZJ166J2WRMF990535EVSQS"}, Timing: Timing{Creation: -3}}},
		{Message: Message{Role: "robot", Contents: nil}},
	}
}

// decodeCanonical must read canonical records exactly as encoding/json does.
func TestDecodeCanonical(t *testing.T) {
	for _, r := range storedSamples() {
		body := AppendJSON(nil, &r)
		var fast, slow Record
		if err := decodeCanonical(body, &fast, "", nil); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if err := json.Unmarshal(body, &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\nfast %+v\nslow %+v", body, fast, slow)
		}
	}
	for _, bad := range []string{
		``, `{`, `{"id":1}`, `{"message":{"role":"user","contents":["a"],"extra":1}}`, `{"id":"\u00zz"}`,
		`{"message":{"contents":["a`, `{"id":"a"}x`, `{"id":"a","id":"b"}`, `{"ID":"a"}`, `{"id": "a"}`,
		`{"metadata":{"timing":{"creation":1.5}}}`, `{"metadata":{"timing":{"creation":01}}}`,
		`{"metadata":{"timing":{"creation":99999999999999999999}}}`, `{"metadata":{"timing":{"llmEnd":null}}}`,
		`{"metadata":{"timing":{"other":1}}}`, `{"metadata":{"aux":{"k":tru}}}`, `{"metadata":{"aux":{"k":1 }}}`,
		`{"metadata":{"aux":{"k": 1}}}`, `{"metadata":{"aux":{"k\n":1}}}`, "{\"id\":\"\xff\"}",
	} {
		var r Record
		if decodeCanonical([]byte(bad), &r, "", nil) == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// DecodeStored reads what the hand parser leaves to encoding/json the same
// way, reuses the conversation id it held, and names a body that is no JSON.
func TestDecodeStored(t *testing.T) {
	var r Record
	if err := DecodeStored([]byte(`{"id":"a","conversation":"c","message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":1}}}`), &r); err != nil {
		t.Fatal(err)
	}
	conv := r.Conversation
	if err := DecodeStored([]byte(`{ "ID": "b", "conversation": "c", "message": {"role":"user","contents":["y"]} }`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != "b" || r.Message.Contents[0] != "y" || r.Metadata.Timing.Creation != 0 {
		t.Errorf("fallback read %+v", r)
	}
	if err := DecodeStored([]byte(`{"id":"c","conversation":"c","message":{"role":"user","contents":["z"]},"metadata":{"timing":{"creation":2}}}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != "c" || r.Conversation != conv || r.Metadata.Timing.Creation != 2 {
		t.Errorf("read %+v", r)
	}
	err := DecodeStored([]byte(`{"id":`), &r)
	if err == nil || !strings.Contains(err.Error(), "record is not valid JSON") {
		t.Errorf("truncated body: %v", err)
	}
}

// FuzzDecodeStored: the hand parser never panics, and what it accepts
// encoding/json reads the same way.
func FuzzDecodeStored(f *testing.F) {
	f.Add([]byte(`{"id":"a","conversation":"c","message":{"role":"user","contents":["x\u00e9\ud83d\ude00"]},"metadata":{"timing":{"creation":1}}}`))
	for _, r := range storedSamples() {
		f.Add(AppendJSON(nil, &r))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast, slow Record
		if decodeCanonical(b, &fast, "c", nil) != nil || json.Unmarshal(b, &slow) != nil {
			return
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%q:\nfast %+v\nslow %+v", b, fast, slow)
		}
	})
}

// benchStoredBodies are bodies as a chat loop stores them.
func benchStoredBodies() [][]byte {
	var bodies [][]byte
	for i := range 1000 {
		r := Record{ID: "01JRZJ166J2WRMF990535EVSQS", Conversation: "bench-conversation",
			Message:  Message{Role: RoleUser, Contents: []string{"Question: why is the sky blue? Please answer in detail, with \"quotes\"."}},
			Metadata: Metadata{Timing: Timing{Creation: 1744815823058 + int64(i)}}}
		if i%2 == 1 {
			end := int64(1744815823999)
			r.Message = Message{Role: RoleAssistant, Contents: []string{"Because of Rayleigh scattering: shorter wavelengths scatter more.", "Second part."}}
			r.Metadata.Attribute = []string{AttrMerged}
			r.Metadata.Timing.LLMEnd = &end
		}
		bodies = append(bodies, AppendJSON(nil, &r))
	}
	return bodies
}

// BenchmarkDecodeStored reads bodies as a chat loop stores them.
func BenchmarkDecodeStored(b *testing.B) {
	bodies := benchStoredBodies()
	b.ReportAllocs()
	var r Record
	for b.Loop() {
		for _, body := range bodies {
			if err := DecodeStored(body, &r); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bodies)), "ns/rec")
}

// plainRun stops where a byte-by-byte scan does, whatever byte stands
// where in a word.
func TestPlainRun(t *testing.T) {
	naive := func(b []byte) int {
		for i, c := range b {
			if c < 0x20 || c == '"' || c == '\\' {
				return i
			}
		}
		return len(b)
	}
	for n := 0; n <= 19; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("aé", n)[:n])
				b[at] = byte(c)
				if got, want := plainRun(b), naive(b); got != want {
					t.Fatalf("%q: %d, want %d", b, got, want)
				}
			}
		}
	}
}

// FuzzDecodeStoredPick: DecodeStoredPick reads what DecodeStored reads,
// and the aux values it picks are those of DecodeStored's map.
func FuzzDecodeStoredPick(f *testing.F) {
	f.Add([]byte(`{"id":"a","conversation":"c","message":{"role":"assistant","contents":["x"]},"metadata":{"timing":{"creation":1},"aux":{"model":"m","usage":{"input_tokens":3},"model":"n","x":[1,{"y":"}"}]}}}`))
	f.Add([]byte(`{"id":"a","conversation":"c","message":{"role":"assistant","contents":["x"]},"metadata":{"timing":{"creation":1},"aux":{"model":tru}}}`))
	f.Add([]byte(`{"id":"a","conversation":"c","message":{"role":"assistant","contents":["x"]},"metadata":{"timing":{"creation":1},"aux":{"Model":"m", "usage" : 1}}}`))
	for _, r := range storedSamples() {
		f.Add(AppendJSON(nil, &r))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var full, picked Record
		pick := Pick{Keys: []string{"model", "usage", "x", "absent"}}
		errFull, errPick := DecodeStored(b, &full), DecodeStoredPick(b, &picked, &pick)
		if (errFull == nil) != (errPick == nil) {
			t.Fatalf("%q: DecodeStored %v, DecodeStoredPick %v", b, errFull, errPick)
		}
		if errFull != nil {
			return
		}
		for i, k := range pick.Keys {
			if !bytes.Equal(pick.Vals[i], full.Metadata.Aux[k]) || (pick.Vals[i] == nil) != (full.Metadata.Aux[k] == nil) {
				t.Errorf("%q: %s picked %q, in the map %q", b, k, pick.Vals[i], full.Metadata.Aux[k])
			}
		}
		full.Metadata.Aux = nil
		if !reflect.DeepEqual(full, picked) {
			t.Errorf("%q:\nfull   %+v\npicked %+v", b, full, picked)
		}
	})
}
