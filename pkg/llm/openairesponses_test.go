package llm

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/providertest"
)

// TestResponsesStreamReasoning: a streamed Responses answer keeps the
// reasoning item with its encrypted_content, as the unstreamed body does.
func TestResponsesStreamReasoning(t *testing.T) {
	a := &providertest.Answer{Text: "42", Thinking: "gAAAAABo-enc", Calls: []providertest.Call{{ID: "call_1", Name: "f", Args: `{"x":1}`}}}
	s := start(t, providertest.Step{Answer: a})
	call := request(t, "openai-responses", true)
	call.OnText = func(string) {}
	got, err := transport(t, "openai-responses", s, Options{}).Send(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	rec := parse(t, "openai-responses", got.Body)
	want := parse(t, "openai-responses", []byte(providertest.Body("openai-responses", "", a)))
	if !reflect.DeepEqual(rec, want) || len(rec.Message.ProviderData) == 0 || !strings.Contains(string(rec.Message.ProviderData[0].Item), "gAAAAABo-enc") {
		t.Errorf("assembled %s\nparsed %+v\nwant   %+v", got.Body, rec, want)
	}
}

// TestResponsesStreamOutputFromItems: a server whose last event carries
// the response without its output (as some compatible servers send it)
// still gives the whole answer, from the output_item.done events.
func TestResponsesStreamOutputFromItems(t *testing.T) {
	stream := "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hel\"}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":\"lo.\"}\n\n" +
		"event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"Hello.\"}]}}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"llama3.2\"}}\n\n"
	s := start(t, providertest.Step{Body: stream, Header: map[string]string{"Content-Type": "text/event-stream"}})
	var text string
	call := request(t, "openai-responses", true)
	call.OnText = func(s string) { text += s }
	got, err := transport(t, "openai-responses", s, Options{}).Send(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if rec := parse(t, "openai-responses", got.Body); text != "Hello." || strings.Join(rec.Message.Contents, "") != "Hello." {
		t.Errorf("text %q, assembled %s", text, got.Body)
	}
}

// TestResponsesStreamError: an error event is the provider's failure.
func TestResponsesStreamError(t *testing.T) {
	stream := "event: error\ndata: {\"type\":\"error\",\"code\":\"ERR_SOMETHING\",\"message\":\"Something went wrong\",\"param\":null}\n\n"
	s := start(t, providertest.Step{Body: stream, Header: map[string]string{"Content-Type": "text/event-stream"}})
	call := request(t, "openai-responses", true)
	call.OnText = func(string) {}
	_, err := transport(t, "openai-responses", s, Options{}).Send(context.Background(), call)
	if e := wantError(t, err); !strings.Contains(e.Message, "Something went wrong") {
		t.Errorf("%v", err)
	}
}
