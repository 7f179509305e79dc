package format

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Response bodies from the providers' documentation (see each provider's
// file for the page), some trimmed of fields the parser ignores.
var responseCases = []struct {
	name, provider, body string
	texts                []string
	calls                []transcript.ToolCall
	aux                  map[string]string // aux key -> compact JSON
	err                  string            // "input", "provider" or "incomplete"
	// data is the provider data kept, each "provider at item" (replaces
	// marked "=" after at).
	data []string
}{
	{name: "openai text", provider: "openai", body: `{
  "id": "chatcmpl-123", "object": "chat.completion", "created": 1677652288, "model": "gpt-4o-mini",
  "system_fingerprint": "fp_44709d6fcb",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "\n\nHello there, how may I assist you today?"}, "logprobs": null, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 9, "completion_tokens": 12, "total_tokens": 21}
}`, texts: []string{"\n\nHello there, how may I assist you today?"},
		aux: map[string]string{"provider": `"openai"`, "model": `"gpt-4o-mini"`, "response_id": `"chatcmpl-123"`, "finish_reason": `"stop"`, "usage": `{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}`}},
	{name: "openai tool calls", provider: "openai", body: `{
  "id": "chatcmpl-abc123", "object": "chat.completion", "created": 1699896916, "model": "gpt-4o-mini",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_abc123", "type": "function", "function": {"name": "get_current_weather", "arguments": "{\n\"location\": \"Boston, MA\"\n}"}},
    {"id": "call_def456", "type": "function", "function": {"name": "get_current_weather", "arguments": "{\"location\": \"Paris\"}"}}]},
    "logprobs": null, "finish_reason": "tool_calls"}],
  "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
}`, calls: []transcript.ToolCall{
		{ID: "call_abc123", Name: "get_current_weather", Arguments: "{\n\"location\": \"Boston, MA\"\n}"},
		{ID: "call_def456", Name: "get_current_weather", Arguments: `{"location": "Paris"}`}},
		aux: map[string]string{"finish_reason": `"tool_calls"`}},
	// https://platform.openai.com/docs/guides/function-calling#custom-tools:
	// a custom tool's call beside a function call; both are kept.
	{name: "openai custom tool call", provider: "openai", body: `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-5","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
    {"id":"call_1","type":"custom","custom":{"name":"code_exec","input":"print(\"hello world\")"}},
    {"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`,
		calls: []transcript.ToolCall{{ID: "call_1", Name: "code_exec", Arguments: `{"input":"print(\"hello world\")"}`}, {ID: "call_2", Name: "get_weather", Arguments: `{"location":"Paris"}`}},
		data:  []string{`openai 0= {"id":"call_1","type":"custom","custom":{"name":"code_exec","input":"print(\"hello world\")"}}`}},
	{name: "openai refusal", provider: "openai", body: `{"id":"c","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I'm sorry, I cannot help with that."},"finish_reason":"stop"}]}`,
		texts: []string{"I'm sorry, I cannot help with that."}, err: "incomplete", aux: map[string]string{"finish_reason": `"refusal"`}},
	{name: "openai length", provider: "openai", body: `{"id":"c","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"The sky is blue bec"},"finish_reason":"length"}]}`,
		texts: []string{"The sky is blue bec"}, err: "incomplete"},
	{name: "openai content filter", provider: "openai", body: `{"id":"c","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"content_filter"}]}`, err: "incomplete"},
	{name: "openai error", provider: "openai", body: `{"error": {"message": "Incorrect API key provided: sk-...", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`, err: "provider"},
	{name: "openai no choices", provider: "openai", body: `{"id":"c","choices":[]}`, err: "input"},

	{name: "anthropic text", provider: "anthropic", body: `{
  "content": [{"text": "Hi! My name is Claude.", "type": "text"}],
  "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF", "model": "claude-sonnet-4-5", "role": "assistant",
  "stop_reason": "end_turn", "stop_sequence": null, "type": "message",
  "usage": {"input_tokens": 2095, "output_tokens": 503}
}`, texts: []string{"Hi! My name is Claude."},
		aux: map[string]string{"model": `"claude-sonnet-4-5"`, "response_id": `"msg_013Zva2CMHLNnXjNJJKqJ2EF"`, "finish_reason": `"end_turn"`, "usage": `{"input_tokens":2095,"output_tokens":503}`}},
	{name: "anthropic tool use", provider: "anthropic", body: `{
  "id": "msg_01Aq9w938a90dw8q", "model": "claude-sonnet-4-5", "stop_reason": "tool_use", "role": "assistant",
  "content": [
    {"type": "text", "text": "I'll check the weather in San Francisco."},
    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather", "input": {"location": "San Francisco, CA", "unit": "celsius"}}
  ]
}`, texts: []string{"I'll check the weather in San Francisco."},
		calls: []transcript.ToolCall{{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Arguments: `{"location":"San Francisco, CA","unit":"celsius"}`}}},
	// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
	{name: "anthropic thinking kept", provider: "anthropic", body: `{"type":"message","id":"m","model":"claude","stop_reason":"tool_use","content":[
    {"type":"thinking","thinking":"Let me analyze this step by step...","signature":"WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL...."},
    {"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF8/dW5hR7xJ0aP1oLs9yTcMnKVf2wRpEGjH9XZaBt4UvDcPrQ..."},
    {"type":"text","text":"I'll check."},
    {"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"location":"Paris"}}]}`,
		texts: []string{"I'll check."}, calls: []transcript.ToolCall{{ID: "toolu_01", Name: "get_weather", Arguments: `{"location":"Paris"}`}},
		data: []string{`anthropic 0 {"type":"thinking","thinking":"Let me analyze this step by step...","signature":"WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL...."}`,
			`anthropic 0 {"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF8/dW5hR7xJ0aP1oLs9yTcMnKVf2wRpEGjH9XZaBt4UvDcPrQ..."}`}},
	{name: "anthropic max tokens", provider: "anthropic", body: `{"type":"message","id":"m","model":"claude","stop_reason":"max_tokens","content":[{"type":"text","text":"Once upon"}]}`,
		texts: []string{"Once upon"}, err: "incomplete"},
	{name: "anthropic error", provider: "anthropic", body: `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`, err: "provider"},

	{name: "gemini text", provider: "gemini", body: `{
  "candidates": [{"content": {"parts": [{"text": "AI learns patterns from data."}, {"text": "It then predicts."}], "role": "model"}, "finishReason": "STOP", "index": 0}],
  "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 10, "totalTokenCount": 18},
  "modelVersion": "gemini-2.5-flash", "responseId": "abc"
}`, texts: []string{"AI learns patterns from data.It then predicts."},
		aux: map[string]string{"model": `"gemini-2.5-flash"`, "response_id": `"abc"`, "finish_reason": `"STOP"`, "usage": `{"promptTokenCount":8,"candidatesTokenCount":10,"totalTokenCount":18}`}},
	{name: "gemini function call", provider: "gemini", body: `{
  "candidates": [{"content": {"role": "model", "parts": [
    {"functionCall": {"name": "set_light_values", "args": {"brightness": 25, "color_temp": "warm"}}, "thoughtSignature": "c2lnMQ=="},
    {"functionCall": {"id": "fc_2", "name": "set_light_values", "args": {"brightness": 50}}}]},
    "finishReason": "STOP"}]
}`, calls: []transcript.ToolCall{
		{ID: "call_test_1", Name: "set_light_values", Arguments: `{"brightness":25,"color_temp":"warm"}`},
		{ID: "fc_2", Name: "set_light_values", Arguments: `{"brightness":50}`}},
		// The first call came without an id and with a signature: kept as
		// sent, to go back to Gemini so.
		data: []string{`gemini 0= {"functionCall":{"name":"set_light_values","args":{"brightness":25,"color_temp":"warm"}},"thoughtSignature":"c2lnMQ=="}`}},
	// Split mid-word, as Gemini streams and answers (one answer, one text).
	{name: "gemini split text", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"Here"},{"text":"'s the year 2"},{"text":"026."}]},"finishReason":"STOP"}]}`,
		texts: []string{"Here's the year 2026."}},
	// A tool Gemini ran on its side: the call and its result in one turn.
	{name: "gemini server-side call", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[
    {"functionCall":{"id":"srv_1","name":"google_search","args":{"q":"weather"}}},
    {"functionResponse":{"id":"srv_1","name":"google_search","response":{"result":"sunny"}}},
    {"text":"It is sunny."}]},"finishReason":"STOP"}]}`,
		texts: []string{"It is sunny."},
		data: []string{`gemini 0 {"functionCall":{"id":"srv_1","name":"google_search","args":{"q":"weather"}}}`,
			`gemini 0 {"functionResponse":{"id":"srv_1","name":"google_search","response":{"result":"sunny"}}}`}},
	{name: "gemini code execution", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[
    {"text":"Let me compute."},
    {"executableCode":{"language":"PYTHON","code":"print(2**10)"}},
    {"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1024\n"}},
    {"text":" It is 1024."}]},"finishReason":"STOP"}]}`,
		texts: []string{"Let me compute. It is 1024."},
		data: []string{`gemini 1 {"executableCode":{"language":"PYTHON","code":"print(2**10)"}}`,
			`gemini 1 {"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1024\n"}}`}},
	{name: "gemini signed text", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"},{"text":"lo.","thoughtSignature":"c2lnMg=="}]},"finishReason":"STOP"}]}`,
		texts: []string{"Hello."},
		data:  []string{`gemini 0= {"text":"Hel"}`, `gemini 0= {"text":"lo.","thoughtSignature":"c2lnMg=="}`}},
	{name: "gemini empty args", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"roll","args":{}}}]},"finishReason":"STOP"}]}`,
		calls: []transcript.ToolCall{{ID: "c1", Name: "roll", Arguments: `{}`}}},
	{name: "gemini thought skipped", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"thinking...","thought":true},{"text":"Answer."}]},"finishReason":"STOP"}]}`,
		texts: []string{"Answer."}},
	{name: "gemini max tokens", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"Part"}]},"finishReason":"MAX_TOKENS"}]}`,
		texts: []string{"Part"}, err: "incomplete"},
	{name: "gemini safety", provider: "gemini", body: `{"candidates":[{"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH"}]}]}`, err: "incomplete"},
	{name: "gemini blocked prompt", provider: "gemini", body: `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]}}`, err: "incomplete"},
	{name: "gemini unset finish reason", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"Whole."}]}}]}`, texts: []string{"Whole."}},
	{name: "gemini unspecified finish reason", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"Whole."}]},"finishReason":"FINISH_REASON_UNSPECIFIED"}]}`, texts: []string{"Whole."}},
	{name: "gemini nothing, no reason", provider: "gemini", body: `{"candidates":[{"content":{"role":"model","parts":[]}}]}`, err: "incomplete"},
	{name: "gemini error", provider: "gemini", body: `{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}`, err: "provider"},

	{name: "bedrock text", provider: "bedrock", body: `{
  "output": {"message": {"role": "assistant", "content": [{"text": "Here is a list of 3 pop songs by artists from the United Kingdom."}]}},
  "stopReason": "end_turn",
  "usage": {"inputTokens": 125, "outputTokens": 60, "totalTokens": 185},
  "metrics": {"latencyMs": 1175}
}`, texts: []string{"Here is a list of 3 pop songs by artists from the United Kingdom."},
		aux: map[string]string{"finish_reason": `"end_turn"`, "usage": `{"inputTokens":125,"outputTokens":60,"totalTokens":185}`}},
	{name: "bedrock tool use", provider: "bedrock", body: `{
  "output": {"message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "top_song", "input": {"sign": "WZPZ"}}}]}},
  "stopReason": "tool_use", "usage": {"inputTokens": 375, "outputTokens": 36, "totalTokens": 411}, "metrics": {"latencyMs": 2830}
}`, calls: []transcript.ToolCall{{ID: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", Name: "top_song", Arguments: `{"sign":"WZPZ"}`}}},
	{name: "bedrock max tokens", provider: "bedrock", body: `{"output":{"message":{"role":"assistant","content":[{"text":"Half"}]}},"stopReason":"max_tokens"}`,
		texts: []string{"Half"}, err: "incomplete"},
	{name: "bedrock error", provider: "bedrock", body: `{"message":"The security token included in the request is invalid."}`, err: "provider"},

	{name: "ollama text", provider: "ollama", body: `{
  "model": "llama3.2", "created_at": "2023-12-12T14:13:43.416799Z",
  "message": {"role": "assistant", "content": "Hello! How are you today?"},
  "done": true, "total_duration": 5191566416, "load_duration": 2154458, "prompt_eval_count": 26,
  "prompt_eval_duration": 383809000, "eval_count": 298, "eval_duration": 4799921000
}`, texts: []string{"Hello! How are you today?"},
		aux: map[string]string{"model": `"llama3.2"`, "usage": `{"eval_count":298,"eval_duration":4799921000,"load_duration":2154458,"prompt_eval_count":26,"prompt_eval_duration":383809000,"total_duration":5191566416}`}},
	{name: "ollama tool call", provider: "ollama", body: `{
  "model": "llama3.2", "created_at": "2024-07-22T20:33:28.123648Z",
  "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_current_weather", "arguments": {"format": "celsius", "location": "Paris, FR"}}}]},
  "done_reason": "stop", "done": true, "total_duration": 885095291, "prompt_eval_count": 122, "eval_count": 33
}`, calls: []transcript.ToolCall{{ID: "call_test_1", Name: "get_current_weather", Arguments: `{"format":"celsius","location":"Paris, FR"}`}}},
	{name: "ollama length", provider: "ollama", body: `{"model":"llama3.2","message":{"role":"assistant","content":"Once"},"done":true,"done_reason":"length"}`,
		texts: []string{"Once"}, err: "incomplete"},
	{name: "ollama streamed chunk", provider: "ollama", body: `{"model":"llama3.2","message":{"role":"assistant","content":"The"},"done":false}`, err: "input"},
	{name: "ollama streamed", provider: "ollama", body: `{"model":"llama3.2","message":{"role":"assistant","content":"The"},"done":false}
{"model":"llama3.2","message":{"role":"assistant","content":" sky"},"done":true}`, err: "input"},
	{name: "ollama error", provider: "ollama", body: `{"error": "model 'llama3.3' not found"}`, err: "provider"},

	// https://platform.openai.com/docs/api-reference/responses/object and
	// the function-calling and reasoning guides (api-mode=responses).
	{name: "responses text", provider: "openai-responses", body: `{
  "id": "resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41", "object": "response", "created_at": 1741476777,
  "status": "completed", "error": null, "incomplete_details": null, "instructions": null, "max_output_tokens": null,
  "model": "gpt-4o-2024-08-06",
  "output": [{"type": "message", "id": "msg_67ccd3acc8d48190a77525dc6de64b4104becb25c45c1d41", "status": "completed", "role": "assistant",
    "content": [{"type": "output_text", "text": "The image depicts a scenic landscape with a wooden boardwalk.", "annotations": []}]}],
  "parallel_tool_calls": true, "store": true, "temperature": 1.0, "tool_choice": "auto", "tools": [], "top_p": 1.0, "truncation": "disabled",
  "usage": {"input_tokens": 328, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 52, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 380},
  "user": null, "metadata": {}
}`, texts: []string{"The image depicts a scenic landscape with a wooden boardwalk."},
		aux: map[string]string{"provider": `"openai-responses"`, "model": `"gpt-4o-2024-08-06"`, "response_id": `"resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41"`, "finish_reason": `"completed"`,
			"usage": `{"input_tokens":328,"input_tokens_details":{"cached_tokens":0},"output_tokens":52,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":380}`},
		data: []string{`openai-responses 0 {"type":"message","id":"msg_67ccd3acc8d48190a77525dc6de64b4104becb25c45c1d41","status":"completed"}`}},
	// phase: OpenAI asks for it back on every assistant message.
	{name: "responses phase", provider: "openai-responses", body: `{"id":"resp_7","object":"response","status":"completed","model":"gpt-5.3-codex",
  "output":[{"type":"message","id":"msg_a","role":"assistant","status":"completed","phase":"commentary","content":[{"type":"output_text","text":"Looking.","annotations":[]}]},
    {"type":"function_call","id":"fc_1","call_id":"call_1","name":"ls","arguments":"{}"},
    {"type":"message","id":"msg_b","role":"assistant","status":"completed","phase":null,"content":[{"type":"output_text","text":"Done.","annotations":[]}]}]}`,
		texts: []string{"Looking.", "Done."}, calls: []transcript.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{}`}},
		data: []string{`openai-responses 0 {"type":"message","id":"msg_a","status":"completed","phase":"commentary"}`,
			`openai-responses 1 {"type":"message","id":"msg_b","status":"completed"}`}},
	{name: "responses reasoning and function call", provider: "openai-responses", body: `{
  "id": "resp_1", "object": "response", "status": "completed", "model": "o4-mini-2025-04-16",
  "output": [
    {"id": "rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7", "type": "reasoning", "summary": [], "encrypted_content": "gAAAAABoIPOE-enc"},
    {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz", "name": "get_weather", "arguments": "{\"location\":\"Paris, France\"}", "status": "completed"}
  ],
  "usage": {"input_tokens": 66, "output_tokens": 87, "total_tokens": 153}
}`, calls: []transcript.ToolCall{{ID: "call_12345xyz", Name: "get_weather", Arguments: `{"location":"Paris, France"}`}},
		data: []string{`openai-responses 0 {"id":"rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7","type":"reasoning","summary":[],"encrypted_content":"gAAAAABoIPOE-enc"}`}},
	{name: "responses reasoning then text", provider: "openai-responses", body: `{"id":"resp_2","object":"response","status":"completed","model":"gpt-5",
  "output":[{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Thinking about it."}],"encrypted_content":"enc"},
    {"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"42","annotations":[]}]}]}`,
		texts: []string{"42"}, data: []string{`openai-responses 0 {"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Thinking about it."}],"encrypted_content":"enc"}`,
			`openai-responses 0 {"type":"message","id":"msg_1","status":"completed"}`}},
	{name: "responses custom tool call", provider: "openai-responses", body: `{"id":"resp_3","object":"response","status":"completed","model":"gpt-5",
  "output":[{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"code_exec","input":"print(\"hello world\")"},
    {"type":"function_call","id":"fc_2","call_id":"call_2","name":"get_weather","arguments":"{}"}]}`,
		calls: []transcript.ToolCall{{ID: "call_1", Name: "code_exec", Arguments: `{"input":"print(\"hello world\")"}`}, {ID: "call_2", Name: "get_weather", Arguments: `{}`}},
		data:  []string{`openai-responses 0= {"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"code_exec","input":"print(\"hello world\")"}`}},
	{name: "responses refusal", provider: "openai-responses", body: `{"id":"resp_4","object":"response","status":"completed","model":"gpt-4o",
  "output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"refusal","refusal":"I'm sorry, I cannot assist with that request."}]}]}`,
		texts: []string{"I'm sorry, I cannot assist with that request."}, err: "incomplete", aux: map[string]string{"finish_reason": `"refusal"`}},
	{name: "responses incomplete", provider: "openai-responses", body: `{"id":"resp_5","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"gpt-5",
  "output":[{"id":"rs_1","type":"reasoning","summary":[]}]}`, err: "incomplete",
		aux:  map[string]string{"finish_reason": `"max_output_tokens"`},
		data: []string{`openai-responses 0 {"id":"rs_1","type":"reasoning","summary":[]}`}},
	{name: "responses failed", provider: "openai-responses", body: `{"id":"resp_6","object":"response","status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."},"output":[]}`, err: "provider"},
	{name: "responses error", provider: "openai-responses", body: `{"error":{"message":"Invalid 'input[0].content': empty.","type":"invalid_request_error","param":"input[0].content","code":null}}`, err: "provider"},
	{name: "responses chat completion", provider: "openai-responses", body: `{"id":"c","object":"chat.completion","choices":[]}`, err: "input"},

	{name: "empty body", provider: "openai", body: ``, err: "input"},
	{name: "not JSON", provider: "anthropic", body: `<html>502 Bad Gateway</html>`, err: "input"},
	{name: "array", provider: "gemini", body: `[{"candidates":[]}]`, err: "input"},
	{name: "empty answer", provider: "anthropic", body: `{"type":"message","id":"m","model":"claude","stop_reason":"end_turn","content":[]}`, err: "incomplete"},
}

// testIDs names tool calls call_test_1, call_test_2...
func testIDs() func() string {
	n := 0
	return func() string { n++; return "call_test_" + string(rune('0'+n)) }
}

func TestParseResponse(t *testing.T) {
	for _, c := range responseCases {
		t.Run(c.name, func(t *testing.T) {
			ans, err := ParseResponse(c.provider, []byte(c.body), testIDs())
			var rec transcript.Record
			if ans != nil {
				rec = ans.Record
			}
			var ie *transcript.InputError
			var pe *ProviderError
			var inc *IncompleteError
			switch c.err {
			case "":
				if err != nil {
					t.Fatal(err)
				}
			case "input":
				if !errors.As(err, &ie) {
					t.Fatalf("err = %v, want an input error", err)
				}
				return
			case "provider":
				if !errors.As(err, &pe) || pe.Message == "" {
					t.Fatalf("err = %v, want a provider error with its message", err)
				}
				return
			case "incomplete":
				if !errors.As(err, &inc) || inc.Answer != ans || !ans.Incomplete {
					t.Fatalf("err = %v, want an incomplete answer", err)
				}
			}
			if err := transcript.Validate(&rec); err != nil {
				t.Errorf("record does not validate: %v", err)
			}
			if rec.Message.Role != transcript.RoleAssistant {
				t.Errorf("role %s", rec.Message.Role)
			}
			if c.texts != nil && !equalJSON(rec.Message.Contents, c.texts) {
				t.Errorf("contents %q, want %q", rec.Message.Contents, c.texts)
			}
			if !equalJSON(rec.Message.ToolCalls, c.calls) {
				t.Errorf("tool calls %+v, want %+v", rec.Message.ToolCalls, c.calls)
			}
			if got := string(rec.Metadata.Aux["provider"]); got != `"`+c.provider+`"` {
				t.Errorf("aux provider %s", got)
			}
			var data []string
			for _, d := range rec.Message.ProviderData {
				eq := ""
				if d.Replaces {
					eq = "="
				}
				data = append(data, fmt.Sprintf("%s %d%s %s", d.Provider, d.At, eq, d.Item))
			}
			if !slices.Equal(data, c.data) {
				t.Errorf("provider data %q, want %q", data, c.data)
			}
			for k, want := range c.aux {
				if got := string(rec.Metadata.Aux[k]); got != want {
					t.Errorf("aux %s = %s, want %s", k, got, want)
				}
			}
		})
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestResponseRoundTrip appends a parsed tool call answer to a transcript and
// renders it back for the same provider: what the provider said comes back
// in its own shape, Gemini's thought signature included.
func TestResponseRoundTrip(t *testing.T) {
	body := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnMQ=="}]},"finishReason":"STOP"}]}`
	ans, err := ParseResponse("gemini", []byte(body), testIDs())
	if err != nil {
		t.Fatal(err)
	}
	rec := ans.Record
	var out strings.Builder
	r, err := NewRenderer(&out, Request{Provider: "gemini"})
	if err != nil {
		t.Fatal(err)
	}
	user := transcript.Record{ID: "u", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Weather in Paris?"}}}
	result := transcript.Record{ID: "t", Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: "call_test_1", Contents: []string{"18°C"}}}
	for _, x := range []*transcript.Record{&user, &rec, &result} {
		if err := r.Add(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// As Gemini sent it: the signature kept, and no id, which convo made
	// up for the record (call_test_1) and Gemini never gave.
	want := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnMQ=="}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18°C"}}}]}`
	if !strings.Contains(out.String(), want) {
		t.Errorf("rendered %s\nwant it to hold %s", out.String(), want)
	}
	if rec.Message.ToolCalls[0].ID != "call_test_1" {
		t.Errorf("the record's call id is %q", rec.Message.ToolCalls[0].ID)
	}
}

// FuzzParseResponse: no body makes a parser panic, and every record it
// accepts is one the store accepts.
func FuzzParseResponse(f *testing.F) {
	for _, c := range responseCases {
		f.Add(c.provider, c.body)
	}
	f.Add("anthropic", `{"id":"m","type":"message","content":[{"type":"compaction","content":"S.","signature":"x"}],"stop_reason":"compaction"}`)
	f.Add("openai-responses", `{"id":"r","object":"response.compaction","output":[{"type":"compaction","id":"c","encrypted_content":"e"}]}`)
	names := Names(CanParse)
	f.Fuzz(func(t *testing.T, provider, body string) {
		if !slices.Contains(names, provider) {
			provider = names[len(provider)%len(names)]
		}
		ans, err := ParseResponse(provider, []byte(body), testIDs())
		var inc *IncompleteError
		whole := err == nil
		if errors.As(err, &inc) {
			err = nil
		}
		if err != nil {
			return
		}
		rec := ans.Record
		if err := transcript.Validate(&rec); err != nil {
			t.Fatalf("%s body %q: record does not validate: %v", provider, body, err)
		}
		// A whole answer's calls are ones every provider takes back; an
		// empty answer is said to be one, and holds nothing.
		if err := transcript.CheckCalls(&rec); whole && err != nil {
			t.Fatalf("%s body %q: a whole answer with calls no provider takes back: %v", provider, body, err)
		}
		if c := ans.Compaction; c != nil {
			// A compaction is a summary record that validates.
			sum := c.Summary(provider, []string{"01JRZJ166J2WRMF990535EVSQS"}, nil)
			if err := transcript.Validate(&sum); err != nil || len(c.Items) == 0 {
				t.Fatalf("%s body %q: compaction summary %+v: %v", provider, body, sum, err)
			}
			if c.Alone {
				return // no answer with it
			}
		}
		empty := len(rec.Message.ToolCalls) == 0 && strings.Join(rec.Message.Contents, "") == ""
		if (inc != nil && inc.Empty != "") != empty {
			t.Fatalf("%s body %q: empty %v, but err %v", provider, body, empty, inc)
		}
		if c := ans.Created; !c.IsZero() && (c.Unix() <= 0 || c.Year() >= 5000) {
			t.Fatalf("%s body %q: created %v", provider, body, c)
		}
	})
}

// TestAnswerFields: the answer names model, finish reason, usage as token
// counts and refusal the same way for every provider.
func TestAnswerFields(t *testing.T) {
	for _, c := range []struct {
		provider, body string
		model, finish  string
		in, out        int
		refusal, text  string
		incomplete     bool
		detail         string
	}{
		{"openai", `{"id":"c","model":"gpt","choices":[{"message":{"content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`, "gpt", "stop", 3, 4, "", "Hi", false, ""},
		{"openai", `{"id":"c","model":"gpt","choices":[{"message":{"content":null,"refusal":"No."},"finish_reason":"stop"}]}`, "gpt", "refusal", 0, 0, "No.", "No.", true, `finish reason refusal ("No.")`},
		{"anthropic", `{"type":"message","model":"claude","content":[{"type":"text","text":"Hi "},{"type":"text","text":"there"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":6}}`, "claude", "end_turn", 5, 6, "", "Hi there", false, ""},
		{"gemini", `{"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"thoughtsTokenCount":40},"modelVersion":"g"}`, "g", "MAX_TOKENS", 5, 43, "", "Hi", true, "finish reason MAX_TOKENS"},
		{"gemini", `{"promptFeedback":{"blockReason":"SAFETY"}}`, "", "SAFETY", 0, 0, "", "", true, "prompt blocked (blockReason SAFETY)"},
		{"ollama", `{"model":"llama","message":{"content":"Hi"},"done":true,"done_reason":"stop","prompt_eval_count":7,"eval_count":8}`, "llama", "stop", 7, 8, "", "Hi", false, ""},
		{"bedrock", `{"output":{"message":{"content":[{"text":"Hi"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":2}}`, "", "end_turn", 1, 2, "", "Hi", false, ""},
	} {
		ans, err := ParseResponse(c.provider, []byte(c.body), nil)
		var inc *IncompleteError
		if errors.As(err, &inc) != c.incomplete || err != nil && inc == nil {
			t.Errorf("%s %s: err %v", c.provider, c.body, err)
			continue
		}
		if inc != nil && inc.Detail() != c.detail {
			t.Errorf("%s: detail %q, want %q", c.provider, inc.Detail(), c.detail)
		}
		if ans.Model != c.model || ans.FinishReason != c.finish || ans.Usage.InputTokens != c.in || ans.Usage.OutputTokens != c.out ||
			ans.Refusal != c.refusal || ans.Text() != c.text || ans.Incomplete != c.incomplete {
			t.Errorf("%s %s: %+v", c.provider, c.body, ans)
		}
	}
	if _, err := ParseResponse("vercel", []byte(`{}`), nil); err == nil {
		t.Error("vercel responses are not read")
	}
}

func TestReadResponse(t *testing.T) {
	for in, want := range map[string]string{
		"":                "no response body",
		"<html>":          "not JSON",
		`{"a":1} {"b":2}`: "more than one JSON value",
		`[1]`:             "not a JSON object",
		" {\"a\":1}\n":    "",
	} {
		_, err := ReadResponse(strings.NewReader(in))
		var ie *transcript.InputError
		if want == "" && err != nil || want != "" && (!errors.As(err, &ie) || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"Invalid model","type":"invalid_request_error"}}`:        "Invalid model",
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: "Overloaded",
		`{"error":"model \"x\" not found, try pulling it first"}`:                     `model "x" not found, try pulling it first`,
		`{"object":"error","message":"The model does not exist.","code":404}`:         "The model does not exist.",
		`{"detail":"Not Found"}`:                        "Not Found",
		"<html>\n  <body>Bad   gateway</body>\n</html>": "<html> <body>Bad gateway</body> </html>",
		`{"foo":1}`: `{"foo":1}`,
	} {
		if got, _ := ErrorMessage([]byte(body)); got != want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", body, got, want)
		}
	}
	if _, ok := ErrorMessage([]byte(`{"choices":[]}`)); ok {
		t.Error("an answer taken for an error body")
	}
}

func TestProviderErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *ProviderError
		want string
	}{
		{&ProviderError{Provider: "openai", Status: 429, Message: "Rate limit reached", Attempts: 4}, "openai: HTTP 429: Rate limit reached (after 4 attempts)"},
		{&ProviderError{Provider: "gemini", Message: "no response within 1s", Attempts: 1}, "gemini: no response within 1s"},
		{&ProviderError{Provider: "anthropic", Err: errors.New("unexpected EOF"), Attempts: 2}, "anthropic: unexpected EOF (after 2 attempts)"},
		{&ProviderError{Provider: "ollama", Message: "model 'x' not found"}, "ollama error: model 'x' not found"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func FuzzErrorMessage(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"Invalid model"}}`))
	f.Add([]byte(`{"error":"not found"}`))
	f.Add([]byte(`{"detail":"Not Found"}`))
	f.Add([]byte("<html>\xff\xfe</html>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if msg, _ := ErrorMessage(body); len(msg) > len(body)+3 && len(msg) > 303 {
			t.Fatalf("message of %d bytes from a %d-byte body", len(msg), len(body))
		}
	})
}

// TestParseResponseInvalidUTF8: a body that is not UTF-8 is refused, not
// read with the bad bytes turned into U+FFFD; ask and summarize see it as
// the provider's failure.
func TestParseResponseInvalidUTF8(t *testing.T) {
	body := []byte("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"caf\xe9\"},\"finish_reason\":\"stop\"}]}")
	_, err := ParseResponse("openai", body, nil)
	var ie *transcript.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "invalid UTF-8 at byte 58") {
		t.Errorf("ParseResponse: %v", err)
	}
	_, err = ParseReply("openai", body, nil)
	var pe *ProviderError
	if !errors.As(err, &pe) || errors.As(err, &ie) || !strings.Contains(err.Error(), "invalid UTF-8") {
		t.Errorf("ParseReply: %v", err)
	}
}
