package format

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
)

// TestEmptyBodies: a body that holds no answer is told the same way by
// every provider (issue 27 item 14): one with no answer field at all
// ({}) is not the provider's response (an *InputError naming the field);
// one whose answer field holds nothing is an incomplete answer whose
// Empty names what is missing, cut short or not.
func TestEmptyBodies(t *testing.T) {
	empties := map[string][]string{
		"openai": {`{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`,
			`{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"length"}]}`},
		"openai-responses": {`{"id":"r","object":"response","status":"completed","output":[]}`,
			`{"id":"r","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"id":"rs_1","type":"reasoning","summary":[]}]}`},
		"anthropic": {`{"type":"message","id":"m","stop_reason":"end_turn","content":[]}`,
			`{"type":"message","id":"m","stop_reason":"max_tokens","content":[{"type":"text","text":""}]}`},
		"gemini": {`{"candidates":[{"content":{"parts":[]},"finishReason":"STOP"}]}`,
			`{"candidates":[{"finishReason":"SAFETY"}]}`, `{"promptFeedback":{"blockReason":"SAFETY"}}`},
		"bedrock": {`{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"end_turn"}`,
			`{"output":{"message":{"content":[{"text":""}]}},"stopReason":"max_tokens"}`},
		"ollama": {`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`,
			`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"length"}`},
	}
	missing := map[string]string{"openai": "choices", "openai-responses": "output", "anthropic": "content",
		"gemini": "candidates", "bedrock": "output", "ollama": "message"}
	for _, p := range Names(CanParse) {
		t.Run(p, func(t *testing.T) {
			_, err := ParseResponse(p, []byte(`{}`), nil)
			var ie *transcript.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "no "+missing[p]) {
				t.Errorf("{}: err = %v, want an input error naming %s", err, missing[p])
			}
			if len(empties[p]) == 0 {
				t.Fatal("no empty body to try")
			}
			for _, body := range empties[p] {
				ans, err := ParseResponse(p, []byte(body), nil)
				var inc *IncompleteError
				if !errors.As(err, &inc) || inc.Empty == "" || !strings.HasPrefix(inc.Empty, "no ") || !strings.Contains(inc.Empty, missing[p]) {
					t.Errorf("%s: err = %v (%+v), want an incomplete answer that names what is missing", body, err, inc)
					continue
				}
				if m := ans.Record.Message; len(m.ToolCalls) > 0 || strings.Join(m.Contents, "") != "" {
					t.Errorf("%s: an empty answer holds %+v", body, m)
				}
			}
			// What holds an answer is not Empty, cut short or not.
			ans, err := ParseResponse(p, []byte(providerBody(p, "Hi", "")), nil)
			var inc *IncompleteError
			if err != nil || errors.As(err, &inc) || ans.Text() != "Hi" {
				t.Errorf("a whole answer: %v", err)
			}
		})
	}
}

// providerBody is a minimal answer of provider p: text, or one tool call
// with arguments args.
func providerBody(p, text, args string) string {
	q := func(s string) string { return string(transcript.AppendString(nil, s)) }
	switch p {
	case "openai":
		if args != "" {
			return `{"id":"c","choices":[{"message":{"content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":` + q(args) + `}}]},"finish_reason":"tool_calls"}]}`
		}
		return `{"id":"c","choices":[{"message":{"content":` + q(text) + `},"finish_reason":"stop"}]}`
	case "openai-responses":
		if args != "" {
			return `{"id":"r","object":"response","status":"completed","output":[{"type":"function_call","call_id":"call_1","name":"f","arguments":` + q(args) + `}]}`
		}
		return `{"id":"r","object":"response","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":` + q(text) + `}]}]}`
	case "anthropic":
		if args != "" {
			return `{"type":"message","id":"m","stop_reason":"tool_use","content":[{"type":"tool_use","id":"call_1","name":"f","input":` + args + `}]}`
		}
		return `{"type":"message","id":"m","stop_reason":"end_turn","content":[{"type":"text","text":` + q(text) + `}]}`
	case "gemini":
		if args != "" {
			return `{"candidates":[{"content":{"parts":[{"functionCall":{"id":"call_1","name":"f","args":` + args + `}}]},"finishReason":"STOP"}]}`
		}
		return `{"candidates":[{"content":{"parts":[{"text":` + q(text) + `}]},"finishReason":"STOP"}]}`
	case "bedrock":
		if args != "" {
			return `{"output":{"message":{"content":[{"toolUse":{"toolUseId":"call_1","name":"f","input":` + args + `}}]}},"stopReason":"tool_use"}`
		}
		return `{"output":{"message":{"content":[{"text":` + q(text) + `}]}},"stopReason":"end_turn"}`
	case "ollama":
		if args != "" {
			return `{"model":"m","message":{"content":"","tool_calls":[{"function":{"name":"f","arguments":` + args + `}}]},"done":true,"done_reason":"stop"}`
		}
		return `{"model":"m","message":{"content":` + q(text) + `},"done":true,"done_reason":"stop"}`
	}
	return ""
}

// TestAnswerArguments: a whole answer's tool calls are held to what every
// provider takes back (transcript.CheckArguments); "" is a call without
// arguments, {}. A cut answer's arguments may be cut too: it stays an
// incomplete answer, for the caller that keeps it to check.
func TestAnswerArguments(t *testing.T) {
	for _, p := range Names(CanParse) {
		// Anthropic, gemini, bedrock and ollama send arguments as an
		// object; the openai APIs as its text.
		ans, err := ParseResponse(p, []byte(providerBody(p, "", `{"city":"Paris"}`)), nil)
		if err != nil || ans.Record.Message.ToolCalls[0].Arguments != `{"city":"Paris"}` {
			t.Errorf("%s: a call: %v %+v", p, err, ans)
		}
		_, err = ParseResponse(p, []byte(providerBody(p, "", `{"city":"Paris","city":"Rome"}`)), nil)
		var ie *transcript.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), `tool call "call_1"`) || !strings.Contains(err.Error(), "key given twice") {
			t.Errorf("%s: a key twice: err = %v, want an input error naming the call", p, err)
		}
	}
	for _, p := range []string{"openai", "openai-responses"} {
		ans, err := ParseResponse(p, []byte(providerBody(p, "", " ")), nil)
		if err != nil || ans.Record.Message.ToolCalls[0].Arguments != "{}" {
			t.Errorf("%s: blank arguments: %v %+v", p, err, ans)
		}
	}
	cut := `{"id":"c","choices":[{"message":{"content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"city\":\"Par"}}]},"finish_reason":"length"}]}`
	ans, err := ParseResponse("openai", []byte(cut), nil)
	var inc *IncompleteError
	if !errors.As(err, &inc) || inc.Empty != "" || transcript.CheckCalls(&ans.Record) == nil {
		t.Errorf("cut arguments: err = %v; want an incomplete answer whose calls CheckCalls refuses", err)
	}
}

// TestAnswerCreated: the answer's creation time, where the body gives one
// (the time part of the id append --from makes, issue 27 item 21).
func TestAnswerCreated(t *testing.T) {
	for _, c := range []struct {
		provider, body string
		want           time.Time
	}{
		{"openai", `{"id":"c","created":1699896916,"choices":[{"message":{"content":"Hi"},"finish_reason":"stop"}]}`, time.Unix(1699896916, 0)},
		{"openai", `{"id":"c","created":"soon","choices":[{"message":{"content":"Hi"},"finish_reason":"stop"}]}`, time.Time{}},
		{"openai", `{"id":"c","created":-5,"choices":[{"message":{"content":"Hi"},"finish_reason":"stop"}]}`, time.Time{}},
		{"openai-responses", `{"id":"r","object":"response","created_at":1741476777,"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"Hi"}]}]}`, time.Unix(1741476777, 0)},
		{"ollama", `{"model":"m","created_at":"2023-08-04T19:22:45.499127Z","message":{"content":"Hi"},"done":true}`, time.Date(2023, 8, 4, 19, 22, 45, 499127000, time.UTC)},
		{"gemini", `{"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}],"createTime":"2025-03-01T10:00:00.123456Z","responseId":"r"}`, time.Date(2025, 3, 1, 10, 0, 0, 123456000, time.UTC)},
		{"anthropic", `{"type":"message","id":"m","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn"}`, time.Time{}},
		{"bedrock", `{"output":{"message":{"content":[{"text":"Hi"}]}},"stopReason":"end_turn"}`, time.Time{}},
	} {
		ans, err := ParseResponse(c.provider, []byte(c.body), nil)
		if err != nil {
			t.Errorf("%s: %v", c.provider, err)
			continue
		}
		if !ans.Created.Equal(c.want) {
			t.Errorf("%s %s: created %v, want %v", c.provider, c.body, ans.Created, c.want)
		}
	}
}
