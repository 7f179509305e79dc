package llm

// The Responses API transport (OpenAI, and Ollama's /v1/responses): POST
// {base}/responses, the key as "Authorization: Bearer", as for Chat
// Completions. Streaming:
//   https://platform.openai.com/docs/api-reference/responses-streaming:
//   named server-sent events, each a JSON object with its "type":
//   response.created and response.in_progress (the response so far),
//   response.output_item.added / .done (each output item, whole at done),
//   response.output_text.delta (a piece of a message's text), refusal and
//   function-call-argument deltas, reasoning summary deltas, and one last
//   response.completed, response.incomplete or response.failed holding the
//   whole response; an "error" event ends a failed stream.

import (
	"encoding/json"
	"io"
	"net/http"
	"sort"

	"github.com/convo-cli/convo/pkg/format"
)

// newOpenAIResponses is the Responses API transport, of OpenAI or of any
// compatible server opts.BaseURL names (the key is then optional).
func newOpenAIResponses(p format.Provider, opts Options) (Transport, error) {
	if opts.APIKey == "" && opts.BaseURL == "" {
		return nil, missingKey(p)
	}
	base, err := baseURL(p, opts)
	if err != nil {
		return nil, err
	}
	path := "responses"
	if opts.Compact {
		path = "responses/compact"
	}
	return &httpTransport{name: p.Name, opts: opts, url: endpoint(base, path), header: bearer(opts.APIKey),
		accept: "text/event-stream", assemble: assembleResponses}, nil
}

// assembleResponses reads a Responses event stream into the response body
// the same call returns without streaming: the response of the last event,
// its output filled from the output_item.done events when a server leaves
// it empty there.
func assembleResponses(r io.Reader, onText func(string)) ([]byte, error) {
	items := map[int]json.RawMessage{}
	var final map[string]json.RawMessage
	err := readSSE(r, func(ev sseEvent) error {
		var e struct {
			Type        string                     `json:"type"`
			Delta       string                     `json:"delta"`
			OutputIndex int                        `json:"output_index"`
			Item        json.RawMessage            `json:"item"`
			Response    map[string]json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal(ev.data, &e); err != nil {
			return badStream("openai-responses", err)
		}
		switch e.Type {
		case "response.output_text.delta":
			onText(e.Delta)
		case "response.output_item.done":
			items[e.OutputIndex] = append(json.RawMessage(nil), e.Item...)
		case "response.completed", "response.incomplete", "response.failed":
			final = e.Response
			return errStop
		case "error":
			return streamError("openai-responses", ev.data)
		}
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	if final == nil {
		return nil, errTruncated
	}
	var out []json.RawMessage
	if json.Unmarshal(final["output"], &out) != nil || len(out) == 0 && len(items) > 0 {
		idx := make([]int, 0, len(items))
		for i := range items {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		out = out[:0]
		for _, i := range idx {
			out = append(out, items[i])
		}
		b, err := format.MarshalNoEscape(out)
		if err != nil {
			return nil, err
		}
		final["output"] = b
	}
	body, err := format.MarshalNoEscape(final)
	if err != nil {
		return nil, &format.ProviderError{Provider: "openai-responses", Status: http.StatusOK, Message: "stream: " + err.Error()}
	}
	return body, nil
}
