package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestProviderDataRoundTrip: provider data read from input is written in
// canonical form and read back the same by both stored-record decoders.
func TestProviderDataRoundTrip(t *testing.T) {
	line := `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"assistant","contents":["42"],"tool_calls":[{"id":"call_1","name":"f","arguments":"{}"}],` +
		`"provider_data":[{"provider":"anthropic","at":0,"item":{ "type": "thinking", "thinking": "Hmm.", "signature": "EqQB" }},{"provider":"gemini","at":1,"item":{"functionCall":{"name":"f","args":{}}},"replaces":true}]},` +
		`"metadata":{"timing":{"creation":1}}}`
	rec, err := ParseLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(&rec); err != nil {
		t.Fatal(err)
	}
	got := string(AppendJSON(nil, &rec))
	want := `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"assistant","contents":["42"],"tool_calls":[{"id":"call_1","name":"f","arguments":"{}"}],` +
		`"provider_data":[{"provider":"anthropic","at":0,"item":{"type":"thinking","thinking":"Hmm.","signature":"EqQB"}},{"provider":"gemini","at":1,"item":{"functionCall":{"name":"f","args":{}}},"replaces":true}]},` +
		`"metadata":{"timing":{"creation":1}}}`
	if got != want {
		t.Fatalf("canonical form\n got %s\nwant %s", got, want)
	}
	var back Record
	if err := DecodeStored([]byte(got), &back); err != nil {
		t.Fatal(err)
	}
	if again := string(AppendJSON(nil, &back)); again != want {
		t.Errorf("DecodeStored lost something:\n got %s\nwant %s", again, want)
	}
	c := rec.Clone()
	c.Message.ProviderData[0].At = 9
	if rec.Message.ProviderData[0].At != 0 {
		t.Error("Clone shares provider data")
	}
}

func TestProviderDataInvalid(t *testing.T) {
	for _, c := range []struct{ msg, field string }{
		{`{"role":"user","contents":["hi"],"provider_data":[{"provider":"anthropic","at":0,"item":{}}]}`, "message.provider_data"},
		{`{"role":"assistant","contents":["hi"],"provider_data":[{"provider":"anthropic","at":2,"item":{}}]}`, "message.provider_data[0].at"},
		{`{"role":"assistant","contents":["hi"],"provider_data":[{"provider":"gemini","at":1,"item":{},"replaces":true}]}`, "message.provider_data[0].at"},
		{`{"role":"assistant","contents":["hi"],"provider_data":[{"provider":"","at":0,"item":{}}]}`, "message.provider_data[0].provider"},
		{`{"role":"assistant","contents":["hi"],"provider_data":[{"provider":"openai-responses","at":0,"item":"text"}]}`, "message.provider_data[0].item"},
	} {
		rec, err := ParseLine([]byte(c.msg))
		if err == nil {
			err = Validate(&rec)
		}
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: err %v, want one naming %s", c.msg, err, c.field)
		}
	}
}

// TestMergeProviderData: rule 1 merges two assistant records; each
// provider item keeps its place beside the part it stood by.
func TestMergeProviderData(t *testing.T) {
	item := func(at int, name string) ProviderItem {
		return ProviderItem{Provider: "p", At: at, Item: json.RawMessage(`{"n":"` + name + `"}`)}
	}
	call := func(id string) ToolCall { return ToolCall{ID: id, Name: "f", Arguments: "{}"} }
	host := Record{Message: Message{Role: RoleAssistant, Contents: []string{"A"}, ToolCalls: []ToolCall{call("c1")},
		ProviderData: []ProviderItem{item(0, "beforeA"), item(1, "beforeC1"), item(2, "endHost")}}}
	in := Record{Message: Message{Role: RoleAssistant, Contents: []string{"B"}, ToolCalls: []ToolCall{call("c2")},
		ProviderData: []ProviderItem{item(0, "beforeB"), item(1, "beforeC2"), item(2, "endIn")}}}
	mergeInto(&host, &in)
	// parts now: A B c1 c2
	var got []string
	for _, d := range host.Message.ProviderData {
		got = append(got, fmt.Sprintf("%d%s", d.At, d.Item))
	}
	want := []string{`0{"n":"beforeA"}`, `2{"n":"beforeC1"}`, `3{"n":"endHost"}`, `1{"n":"beforeB"}`, `3{"n":"beforeC2"}`, `4{"n":"endIn"}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("places %v, want %v", got, want)
	}
	if err := Validate(&host); err != nil {
		t.Error(err)
	}
}
