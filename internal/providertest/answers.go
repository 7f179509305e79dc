package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The bodies below follow the examples of each provider's documentation:
// https://platform.openai.com/docs/api-reference/chat/object and
// .../chat-streaming, https://docs.anthropic.com/en/api/messages and
// .../build-with-claude/streaming,
// https://ai.google.dev/api/generate-content, and
// https://github.com/ollama/ollama/blob/main/docs/api.md.

// Models the fake answers as, whatever the request named (ollama echoes
// the request's).
const (
	OpenAIModel    = "gpt-4o-mini-2024-07-18"
	AnthropicModel = "claude-haiku-4-5-20251001"
	GeminiModel    = "gemini-2.5-flash"
)

// writeAnswer writes a in req's provider format, as a stream when req asks
// for one and the status is 200.
func writeAnswer(w http.ResponseWriter, req *Request, status int, h map[string]string, a *Answer) {
	body, ctype := Body(req.Provider, req.Model, a), "application/json"
	if strings.HasSuffix(req.Path, "/responses/compact") {
		body = compactBody(req, a)
	}
	if req.Stream && cmp(status, 200) == 200 {
		body, ctype = Stream(req.Provider, req.Model, a), streamType(req.Provider)
	}
	setHeader(w, h, ctype)
	w.WriteHeader(cmp(status, 200))
	io.WriteString(w, body)
}

// streamType is the Content-Type of provider's streams.
func streamType(provider string) string {
	switch provider {
	case "ollama":
		return "application/x-ndjson"
	case "bedrock":
		return BedrockStreamType
	}
	return "text/event-stream"
}

// Body is a's non-streaming response body in provider's format; model is
// what ollama echoes.
func Body(provider, model string, a *Answer) string {
	switch provider {
	case "openai":
		return mustJSON(openaiBody(a))
	case "openai-responses":
		return responsesBody(a)
	case "anthropic":
		return mustJSON(map[string]any{
			"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": AnthropicModel,
			"content": anthropicBlocks(a), "stop_reason": anthropicFinish(a), "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 19, "output_tokens": 10},
		})
	case "gemini":
		if a.Blocked != "" {
			return mustJSON(geminiBlocked(a))
		}
		return mustJSON(geminiChunk(geminiParts(a.Text, a.Calls), cmpStr(a.Finish, "STOP"), true))
	case "ollama":
		return mustJSON(ollamaLine(model, a.Text, a.Calls, cmpStr(a.Finish, "stop")))
	case "bedrock":
		return mustJSON(bedrockBody(a))
	}
	return ""
}

// ErrorBody is provider's error body for status, carrying msg.
func ErrorBody(provider string, status int, msg string) string {
	switch provider {
	case "openai", "openai-responses":
		kind := map[int]string{400: "invalid_request_error", 401: "invalid_request_error", 404: "invalid_request_error", 429: "requests"}[status]
		return mustJSON(map[string]any{"error": map[string]any{"message": msg, "type": cmpStr(kind, "server_error"), "param": nil, "code": nil}})
	case "anthropic":
		kind := map[int]string{400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}[status]
		return mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": cmpStr(kind, "api_error"), "message": msg}})
	case "gemini":
		kind := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}[status]
		return mustJSON(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": cmpStr(kind, "INTERNAL")}})
	case "bedrock":
		return mustJSON(map[string]any{"message": msg})
	}
	return mustJSON(map[string]any{"error": msg})
}

func writeError(w http.ResponseWriter, provider string, status int, msg string, h map[string]string) {
	if provider == "bedrock" {
		h = bedrockErrorHeader(status, h)
	}
	setHeader(w, h, "application/json")
	w.WriteHeader(status)
	io.WriteString(w, ErrorBody(provider, status, msg))
}

// Stream is a's streamed response in provider's format: the text in two
// pieces, each tool call's arguments too.
func Stream(provider, model string, a *Answer) string {
	switch provider {
	case "openai":
		return openaiStream(a)
	case "openai-responses":
		return responsesStream(a)
	case "anthropic":
		return anthropicStream(a)
	case "gemini":
		if a.Blocked != "" {
			return "data: " + mustJSON(geminiBlocked(a)) + "\r\n\r\n"
		}
		var b strings.Builder
		pieces := halves(a.Text)
		for i, p := range pieces {
			var calls []Call
			if i == len(pieces)-1 {
				calls = a.Calls
			}
			fmt.Fprintf(&b, "data: %s\r\n\r\n", mustJSON(geminiChunk(geminiParts(p, calls), "", false)))
		}
		if len(pieces) == 0 && len(a.Calls) > 0 {
			fmt.Fprintf(&b, "data: %s\r\n\r\n", mustJSON(geminiChunk(geminiParts("", a.Calls), "", false)))
		}
		fmt.Fprintf(&b, "data: %s\r\n\r\n", mustJSON(geminiChunk([]any{map[string]any{"text": ""}}, cmpStr(a.Finish, "STOP"), true)))
		return b.String()
	case "ollama":
		var b strings.Builder
		for _, p := range halves(a.Text) {
			b.WriteString(mustJSON(ollamaLine(model, p, nil, "")) + "\n")
		}
		if len(a.Calls) > 0 {
			b.WriteString(mustJSON(ollamaLine(model, "", a.Calls, "")) + "\n")
		}
		b.WriteString(mustJSON(ollamaLine(model, "", nil, cmpStr(a.Finish, "stop"))) + "\n")
		return b.String()
	case "bedrock":
		return bedrockStream(a)
	}
	return ""
}

// halves splits s in two pieces, as a stream would; none for "".
func halves(s string) []string {
	switch len(s) {
	case 0:
		return nil
	case 1:
		return []string{s}
	}
	return []string{s[:len(s)/2], s[len(s)/2:]}
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sse writes events as a text/event-stream: a [2]any is a named event, a
// string raw data, anything else JSON data.
func sse(events ...any) string {
	var b strings.Builder
	for _, ev := range events {
		switch e := ev.(type) {
		case [2]any:
			fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", e[0], mustJSON(e[1]))
		case string:
			fmt.Fprintf(&b, "data: %s\n\n", e)
		default:
			fmt.Fprintf(&b, "data: %s\n\n", mustJSON(e))
		}
	}
	return b.String()
}

const openaiID = "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG"

func openaiFinish(a *Answer) string {
	switch {
	case a.Finish != "":
		return a.Finish
	case len(a.Calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func openaiBody(a *Answer) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if a.Text != "" {
		msg["content"] = a.Text
	}
	if a.Refusal != "" {
		msg["refusal"] = a.Refusal
	}
	if len(a.Calls) > 0 {
		var tcs []any
		for _, c := range a.Calls {
			tcs = append(tcs, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = tcs
	}
	return map[string]any{
		"id": openaiID, "object": "chat.completion", "created": 1741570283,
		"model": OpenAIModel, "system_fingerprint": "fp_06737a9306",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": openaiFinish(a)}},
		"usage":   map[string]any{"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
	}
}

func openaiStream(a *Answer) string {
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": openaiID, "object": "chat.completion.chunk", "created": 1741570283,
			"model": OpenAIModel, "system_fingerprint": "fp_06737a9306",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
	}
	evs := []any{chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)}
	for _, p := range halves(a.Text) {
		evs = append(evs, chunk(map[string]any{"content": p}, nil))
	}
	for _, p := range halves(a.Refusal) {
		evs = append(evs, chunk(map[string]any{"refusal": p}, nil))
	}
	for i, c := range a.Calls {
		evs = append(evs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		for _, p := range halves(c.Args) {
			evs = append(evs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil))
		}
	}
	evs = append(evs, chunk(map[string]any{}, openaiFinish(a)), map[string]any{
		"id": openaiID, "object": "chat.completion.chunk", "created": 1741570283,
		"model": OpenAIModel, "system_fingerprint": "fp_06737a9306", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
	}, "[DONE]")
	return sse(evs...)
}

func anthropicFinish(a *Answer) string {
	switch {
	case a.Finish != "":
		return a.Finish
	case a.compacting() && a.Text == "" && len(a.Calls) == 0:
		return "compaction"
	case len(a.Calls) > 0 || a.Structured && json.Valid([]byte(a.Text)):
		return "tool_use"
	}
	return "end_turn"
}

func anthropicBlocks(a *Answer) []any {
	if a.Structured && json.Valid([]byte(a.Text)) {
		return []any{map[string]any{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "structured_answer", "input": json.RawMessage(a.Text)}}
	}
	blocks := []any{}
	if a.compacting() {
		blocks = append(blocks, anthropicCompaction(a))
	}
	if a.Thinking != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": "Let me think.", "signature": a.Thinking})
	}
	if a.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": a.Text})
	}
	for _, c := range a.Calls {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(cmpStr(c.Args, "{}"))})
	}
	return blocks
}

func anthropicStream(a *Answer) string {
	evs := []any{[2]any{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": AnthropicModel,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 19, "output_tokens": 1},
	}}}, [2]any{"ping", map[string]any{"type": "ping"}}}
	for i, blk := range anthropicBlocks(a) {
		b := blk.(map[string]any)
		switch b["type"] {
		case "thinking":
			evs = append(evs, [2]any{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": ""}}},
				[2]any{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": b["thinking"]}}},
				[2]any{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": b["signature"]}}})
		case "compaction":
			evs = append(evs, [2]any{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "compaction", "content": nil, "signature": b["signature"]}}})
			if b["content"] != nil {
				evs = append(evs, [2]any{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "compaction_delta", "content": b["content"], "encrypted_content": nil}}})
			}
		case "text":
			evs = append(evs, [2]any{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}}})
			for _, p := range halves(b["text"].(string)) {
				evs = append(evs, [2]any{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": p}}})
			}
		case "tool_use":
			evs = append(evs, [2]any{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}}})
			for _, p := range halves(string(b["input"].(json.RawMessage))) {
				evs = append(evs, [2]any{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}}})
			}
		}
		evs = append(evs, [2]any{"content_block_stop", map[string]any{"type": "content_block_stop", "index": i}})
	}
	evs = append(evs,
		[2]any{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": anthropicFinish(a), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}}},
		[2]any{"message_stop", map[string]any{"type": "message_stop"}})
	return sse(evs...)
}

func geminiParts(text string, calls []Call) []any {
	parts := []any{}
	if text != "" {
		parts = append(parts, map[string]any{"text": text})
	}
	for _, c := range calls {
		fc := map[string]any{"name": c.Name, "args": json.RawMessage(cmpStr(c.Args, "{}"))}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		parts = append(parts, map[string]any{"functionCall": fc})
	}
	return parts
}

func geminiChunk(parts []any, finish string, last bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	out := map[string]any{"candidates": []any{cand}, "modelVersion": GeminiModel, "responseId": "mcIwaPfXHZqd1dkP7rnc6Qk"}
	if last {
		out["usageMetadata"] = map[string]any{"promptTokenCount": 19, "candidatesTokenCount": 10, "totalTokenCount": 29}
	}
	return out
}

func geminiBlocked(a *Answer) map[string]any {
	return map[string]any{"promptFeedback": map[string]any{"blockReason": a.Blocked},
		"usageMetadata": map[string]any{"promptTokenCount": 19, "totalTokenCount": 19}, "modelVersion": GeminiModel}
}

func ollamaLine(model, text string, calls []Call, finish string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": text}
	if len(calls) > 0 {
		var tcs []any
		for _, c := range calls {
			tcs = append(tcs, map[string]any{"function": map[string]any{"name": c.Name, "arguments": json.RawMessage(cmpStr(c.Args, "{}"))}})
		}
		msg["tool_calls"] = tcs
	}
	out := map[string]any{"model": cmpStr(model, "llama3.2"), "created_at": "2023-12-12T14:13:43.416799Z", "message": msg, "done": finish != ""}
	if finish != "" {
		out["done_reason"] = finish
		for k, v := range map[string]any{"total_duration": 5191566416, "load_duration": 2154458, "prompt_eval_count": 19, "prompt_eval_duration": 383809000, "eval_count": 10, "eval_duration": 4799921000} {
			out[k] = v
		}
	}
	return out
}
