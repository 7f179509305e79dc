package llm

import (
	"context"
	"testing"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/format"
)

// TestStreamCompaction: a streamed answer keeps the compaction the
// unstreamed body holds, its readable content (anthropic's compaction_delta)
// included, for both APIs that compact.
func TestStreamCompaction(t *testing.T) {
	for _, name := range []string{"anthropic", "openai-responses"} {
		t.Run(name, func(t *testing.T) {
			a := &providertest.Answer{Text: "21 C.", Compaction: "Paris was 18°C."}
			s := start(t, providertest.Step{Answer: a})
			call := request(t, name, true)
			call.OnText = func(string) {}
			got, err := transport(t, name, s, Options{}).Send(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := format.ParseResponse(name, got.Body, nil)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := format.ParseResponse(name, []byte(providertest.Body(name, "", a)), nil)
			if err != nil {
				t.Fatal(err)
			}
			c, w := streamed.Compaction, whole.Compaction
			if c == nil || w == nil || c.Text != w.Text || len(c.Items) != 1 || streamed.Text() != "21 C." {
				t.Fatalf("streamed %s\ncompaction %+v, want %+v", got.Body, c, w)
			}
			if name == "anthropic" && c.Text != "Paris was 18°C." {
				t.Errorf("content %q", c.Text)
			}
		})
	}
}
