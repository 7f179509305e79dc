package tokens

import (
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

func TestCount(t *testing.T) {
	for _, name := range Names {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Count("hello world"); n != 2 {
			t.Errorf("%s: hello world = %d tokens, want 2", name, n)
		}
		if n := c.Count(""); n != 0 {
			t.Errorf("%s: empty = %d", name, n)
		}
	}
	if _, err := New("gpt2"); err == nil {
		t.Error("unknown encoding accepted")
	}
}

func TestView(t *testing.T) {
	c, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	msg := func(role transcript.Role, text string) transcript.Record {
		return transcript.Record{Message: transcript.Message{Role: role, Contents: []string{text}}}
	}
	call := transcript.Record{Message: transcript.Message{Role: "assistant", ToolCalls: []transcript.ToolCall{{ID: "c", Name: "get_weather", Arguments: `{"city":"Paris"}`}}}}
	sum := msg("summary", "hello world")
	v := transcript.View{Summary: &sum, Messages: []transcript.Record{msg("user", "hello world"), call}}
	want := 2 + 2 + c.Count("get_weather") + c.Count(`{"city":"Paris"}`)
	if got := c.View(v); got != want {
		t.Fatalf("view = %d tokens, want %d", got, want)
	}

	// A tally fed a whole transcript, stored or not, counts its view.
	sys := msg("system", "be brief, be brief")
	old := msg("user", "long forgotten words here")
	recs := []transcript.Record{sys, old, msg("assistant", "gone"), sum, msg("user", "hello world"), sys, call}
	if got := c.View(transcript.BuildView(recs)); got != want {
		t.Fatalf("view of the transcript = %d tokens, want %d", got, want)
	}
	byRecord, stored := c.Tally(), c.Tally()
	for i := range recs {
		byRecord.Add(&recs[i])
		if err := stored.AddStored(recs[i].Message.Role, transcript.AppendJSON(nil, &recs[i])); err != nil {
			t.Fatal(err)
		}
	}
	if byRecord.Tokens() != want || stored.Tokens() != want {
		t.Fatalf("tallies %d and %d, want %d", byRecord.Tokens(), stored.Tokens(), want)
	}
	if err := c.Tally().AddStored("user", []byte("{")); err == nil {
		t.Error("a corrupt body was counted")
	}
}

func TestRarity(t *testing.T) {
	for _, name := range Names {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		// Common words weigh nothing; rarer ones more; a word split into
		// several tokens most.
		if r := c.Rarity("the"); r != 0 {
			t.Errorf("%s: rarity(the) = %g, want 0", name, r)
		}
		pizza, violin, gatsby := c.Rarity("pizza"), c.Rarity("violin"), c.Rarity("Gatsby")
		if !(0 < pizza && pizza < violin && violin < gatsby) {
			t.Errorf("%s: rarity pizza %g, violin %g, Gatsby %g: want increasing and positive", name, pizza, violin, gatsby)
		}
		if r := c.Rarity(""); r < 0 {
			t.Errorf("%s: rarity of nothing %g", name, r)
		}
	}
}

// InHand counts a record as Stored counts its canonical body.
func TestInHandIsStored(t *testing.T) {
	c, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"role":"user","content":"hello there, how are you?"}`,
		`{"role":"system","content":"you are helpful"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"fox\"}"}}]}`,
		`{"role":"tool","tool_call_id":"c1","name":"lookup","content":"a quick brown fox\u2028é"}`,
	} {
		r, err := transcript.ParseLine([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		want, err := c.Stored(string(r.Message.Role), transcript.AppendJSON(nil, &r))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.InHand(&r); err != nil || got != want {
			t.Errorf("%s: InHand %d (%v), Stored %d", line, got, err, want)
		}
	}
}
