package format

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// AddJSON renders a stored body as Add renders the record, thought
// signatures included, and refuses a body that is not JSON.
func TestAddJSON(t *testing.T) {
	recs := []transcript.Record{
		{ID: "a", Conversation: "c", Message: transcript.Message{Role: "user", Contents: []string{"esc \"q\" \n é"}}},
		{ID: "b", Conversation: "c", Message: transcript.Message{Role: "assistant", Contents: []string{}, ToolCalls: []transcript.ToolCall{{ID: "1", Name: "f", Arguments: `{"k":"v"}`}}},
			Metadata: transcript.Metadata{Aux: map[string]json.RawMessage{thoughtSignaturesKey: json.RawMessage(`{"1":"c2ln"}`)}}},
		{ID: "c", Conversation: "c", Message: transcript.Message{Role: "tool", Contents: []string{"r"}, ToolCallID: "1", Name: "f"}},
	}
	for _, p := range []string{"openai", "gemini"} {
		var viaAdd, viaJSON bytes.Buffer
		ra, err := NewRenderer(&viaAdd, Request{Provider: p})
		if err != nil {
			t.Fatal(err)
		}
		rj, _ := NewRenderer(&viaJSON, Request{Provider: p})
		for i := range recs {
			if err := ra.Add(&recs[i]); err != nil {
				t.Fatal(err)
			}
			if err := rj.AddJSON(transcript.AppendJSON(nil, &recs[i])); err != nil {
				t.Fatal(err)
			}
		}
		if err := ra.Close(); err != nil {
			t.Fatal(err)
		}
		if err := rj.Close(); err != nil {
			t.Fatal(err)
		}
		if viaAdd.String() != viaJSON.String() {
			t.Errorf("%s:\nAdd     %s\nAddJSON %s", p, viaAdd.String(), viaJSON.String())
		}
		if p == "gemini" && !bytes.Contains(viaJSON.Bytes(), []byte(`"thoughtSignature":"c2ln"`)) {
			t.Errorf("thought signature lost: %s", viaJSON.String())
		}
	}
	r, _ := NewRenderer(io.Discard, Request{Provider: "openai"})
	if err := r.AddJSON([]byte(`{"id":`)); err == nil {
		t.Error("a truncated body was accepted")
	}
}

// BenchmarkAddJSON renders stored bodies as a chat loop leaves them.
func BenchmarkAddJSON(b *testing.B) {
	var bodies [][]byte
	for i := range 1000 {
		r := transcript.Record{ID: "01JRZJ166J2WRMF990535EVSQS", Conversation: "bench-conversation",
			Message:  transcript.Message{Role: transcript.RoleUser, Contents: []string{"Question: why is the sky blue? Please answer in detail, with \"quotes\"."}},
			Metadata: transcript.Metadata{Timing: transcript.Timing{Creation: 1744815823058 + int64(i)}}}
		if i%2 == 1 {
			end := int64(1744815823999)
			r.Message = transcript.Message{Role: transcript.RoleAssistant, Contents: []string{"Because of Rayleigh scattering: shorter wavelengths scatter more.", "Second part."}}
			r.Metadata.Attribute = []string{"merged"}
			r.Metadata.Timing.LLMEnd = &end
		}
		bodies = append(bodies, transcript.AppendJSON(nil, &r))
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewRenderer(io.Discard, Request{Provider: "openai"})
		if err != nil {
			b.Fatal(err)
		}
		for _, body := range bodies {
			if err := r.AddJSON(body); err != nil {
				b.Fatal(err)
			}
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bodies)), "ns/rec")
}
