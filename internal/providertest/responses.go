package providertest

import (
	"encoding/json"
	"strings"
)

// The Responses API as https://platform.openai.com/docs/api-reference/responses
// documents it: POST .../responses, a response object whose output holds
// reasoning, message and function_call items, and with "stream": true the
// named events response.created ... response.completed
// (https://platform.openai.com/docs/api-reference/responses-streaming).

const responsesID = "resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41"

// ResponsesModel is the model the fake answers the Responses API as.
const ResponsesModel = "gpt-5-mini-2025-08-07"

// responsesItems are a's output items: a reasoning item when a thinks,
// the message (text, or a refusal), then the function calls.
func responsesItems(a *Answer) []map[string]any {
	var items []map[string]any
	if a.compacting() {
		items = append(items, responsesCompaction(a))
	}
	if a.Thinking != "" {
		items = append(items, map[string]any{"id": "rs_6820f383d7c08191846711c5df8233bc", "type": "reasoning", "summary": []any{},
			"encrypted_content": a.Thinking})
	}
	if a.Text != "" || a.Refusal != "" {
		part := map[string]any{"type": "output_text", "text": a.Text, "annotations": []any{}}
		if a.Refusal != "" {
			part = map[string]any{"type": "refusal", "refusal": a.Refusal}
		}
		items = append(items, map[string]any{"type": "message", "id": "msg_67ccd3acc8d48190a77525dc6de64b41", "status": "completed",
			"role": "assistant", "content": []any{part}})
	}
	for i, c := range a.Calls {
		items = append(items, map[string]any{"type": "function_call", "id": "fc_" + strings.Repeat("0", i+1), "call_id": c.ID,
			"name": c.Name, "arguments": c.Args, "status": "completed"})
	}
	return items
}

func responsesObject(a *Answer, status string, output []map[string]any) map[string]any {
	r := map[string]any{
		"id": responsesID, "object": "response", "created_at": 1741476777, "status": status,
		"error": nil, "incomplete_details": nil, "model": ResponsesModel, "output": output,
		"usage": map[string]any{"input_tokens": 19, "output_tokens": 10, "total_tokens": 29},
	}
	if output == nil {
		r["output"] = []any{}
	}
	if status == "incomplete" {
		r["incomplete_details"] = map[string]any{"reason": a.Finish}
	}
	return r
}

// responsesStatus is completed, or incomplete when a has a finish reason
// (max_output_tokens, content_filter).
func responsesStatus(a *Answer) string {
	if a.Finish != "" {
		return "incomplete"
	}
	return "completed"
}

func responsesBody(a *Answer) string {
	return mustJSON(responsesObject(a, responsesStatus(a), responsesItems(a)))
}

// responsesStream writes each item as added, its text or arguments in two
// deltas, and done, then the whole response in the last event.
func responsesStream(a *Answer) string {
	ev := func(kind string, fields map[string]any) [2]any {
		fields["type"] = kind
		return [2]any{kind, fields}
	}
	evs := []any{ev("response.created", map[string]any{"response": responsesObject(a, "in_progress", nil)})}
	items := responsesItems(a)
	for i, it := range items {
		added := map[string]any{}
		for k, v := range it {
			added[k] = v
		}
		switch it["type"] {
		case "message":
			added["content"], added["status"] = []any{}, "in_progress"
		case "function_call":
			added["arguments"], added["status"] = "", "in_progress"
		}
		evs = append(evs, ev("response.output_item.added", map[string]any{"output_index": i, "item": added}))
		switch it["type"] {
		case "message":
			for _, p := range halves(a.Text) {
				evs = append(evs, ev("response.output_text.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": p}))
			}
			for _, p := range halves(a.Refusal) {
				evs = append(evs, ev("response.refusal.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": p}))
			}
		case "function_call":
			for _, p := range halves(it["arguments"].(string)) {
				evs = append(evs, ev("response.function_call_arguments.delta", map[string]any{"item_id": it["id"], "output_index": i, "delta": p}))
			}
		}
		evs = append(evs, ev("response.output_item.done", map[string]any{"output_index": i, "item": it}))
	}
	status := responsesStatus(a)
	evs = append(evs, ev("response."+status, map[string]any{"response": responsesObject(a, status, items)}))
	return sse(evs...)
}

// checkResponses refuses what the Responses API refuses of a body.
func checkResponses(body map[string]any) (int, string) {
	if m, _ := body["model"].(string); m == "" {
		return 400, "Missing required parameter: 'model'."
	}
	input, ok := body["input"]
	if !ok {
		return 400, "Missing required parameter: 'input'."
	}
	if list, isList := input.([]any); isList && !compactionFirst(list) {
		return 400, "Invalid 'input': a compaction item that this server did not make, or more than one."
	}
	if list, isList := input.([]any); isList {
		for i, it := range list {
			m, _ := it.(map[string]any)
			if _, err := json.Marshal(m); err != nil || m == nil {
				return 400, "Invalid 'input': want a list of items."
			}
			switch m["type"] {
			case nil, "message":
				if msg := checkResponsesMessage(m); msg != "" {
					return 400, "Invalid 'input[" + itoa(i) + "]': " + msg
				}
			case "function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output", "compaction":
			default:
				return 400, "Invalid value for 'input[" + itoa(i) + "].type'."
			}
		}
	}
	return 0, ""
}

// checkResponsesMessage refuses a message item the OpenAPI spec does not
// allow: an input message (EasyInputMessage, InputMessage) takes content as
// a string or input_* parts; an OutputMessage needs id and status, and its
// output_text parts need annotations.
func checkResponsesMessage(m map[string]any) string {
	switch m["role"] {
	case "user", "assistant", "system", "developer":
	default:
		return "unknown role"
	}
	if _, ok := m["content"].(string); ok {
		return ""
	}
	parts, ok := m["content"].([]any)
	if !ok {
		return "content: want a string or a list of parts"
	}
	output := m["id"] != nil || m["status"] != nil
	for _, p := range parts {
		part, _ := p.(map[string]any)
		switch t, _ := part["type"].(string); {
		case m["role"] != "assistant" && strings.HasPrefix(t, "input_"):
		case output && m["role"] == "assistant" && (t == "output_text" || t == "refusal"):
			if _, ok := part["annotations"].([]any); t == "output_text" && !ok {
				return "output_text: missing annotations"
			}
		case !output && strings.HasPrefix(t, "input_"):
		default:
			return "content part type " + t + " is not allowed here"
		}
	}
	if output && (m["id"] == nil || m["status"] == nil) {
		return "an output message needs id and status"
	}
	return ""
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
