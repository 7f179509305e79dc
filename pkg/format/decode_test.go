package format

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// decodeRecord must read canonical records exactly as encoding/json does.
func TestDecodeRecord(t *testing.T) {
	ms := int64(7)
	recs := []transcript.Record{
		{ID: "01JRZJ166J2WRMF990535EVSQS", Conversation: "c", Message: transcript.Message{Role: "user", Contents: []string{"plain", "esc \"q\" \\ / \n\r\t\b\f \u0001 é 👋🏽 \u2028 <&>"}},
			Metadata: transcript.Metadata{Attribute: []string{"merged"}, Timing: transcript.Timing{Creation: 1, LLMEnd: &ms}, Aux: map[string]json.RawMessage{"x": json.RawMessage(`{"a":[1,"]}",{"b":null}],"c":true}`)}}},
		{ID: "b", Conversation: "c", Message: transcript.Message{Role: "assistant", Contents: []string{}, ToolCalls: []transcript.ToolCall{{ID: "1", Name: "f", Arguments: `{"k":"v\n"}`}, {ID: "2", Name: "g"}}}},
		{ID: "c", Conversation: "c", Message: transcript.Message{Role: "tool", Contents: []string{"r"}, ToolCallID: "1", Name: "f", IsError: true},
			Metadata: transcript.Metadata{Aux: map[string]json.RawMessage{thoughtSignaturesKey: json.RawMessage(`{"1":"c2ln"}`)}}},
	}
	for _, r := range recs {
		body := transcript.AppendJSON(nil, &r)
		var fast, slow transcript.Record
		if err := decodeRecord(body, &fast); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if err := json.Unmarshal(body, &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast.Message, slow.Message) || fast.ID != slow.ID {
			t.Errorf("%s:\nfast %+v\nslow %+v", body, fast, slow)
		}
		if _, ok := slow.Metadata.Aux[thoughtSignaturesKey]; ok && !reflect.DeepEqual(fast.Metadata.Aux, slow.Metadata.Aux) {
			t.Errorf("thought signatures lost: %+v", fast.Metadata.Aux)
		}
	}
	for _, bad := range []string{``, `{`, `{"id":1}`, `{"message":{"role":"user","contents":["a"],"extra":1}}`, `{"id":"\u00zz"}`, `{"message":{"contents":["a`} {
		var r transcript.Record
		if decodeRecord([]byte(bad), &r) == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// FuzzDecodeRecord: the hand decoder never panics, and what it accepts
// encoding/json reads the same way.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(`{"id":"a","conversation":"c","message":{"role":"user","contents":["x\u00e9\ud83d\ude00"]},"metadata":{"timing":{"creation":1}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast, slow transcript.Record
		if decodeRecord(b, &fast) != nil || json.Unmarshal(b, &slow) != nil {
			return
		}
		if !reflect.DeepEqual(fast.Message, slow.Message) || fast.ID != slow.ID {
			t.Errorf("%q:\nfast %+v\nslow %+v", b, fast, slow)
		}
	})
}
