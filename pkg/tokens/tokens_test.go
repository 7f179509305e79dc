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
