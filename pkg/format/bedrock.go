package format

// Amazon Bedrock Converse API.
//
// Request: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html,
// https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html and
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultBlock.html
//   - the system prompt is "system": [{"text"}...], one block per string;
//   - messages alternate user/assistant, the first from the user, each with
//     "content" blocks: {"text"}, {"toolUse":{"toolUseId","name","input"}}
//     (input a JSON object), and in the next user message
//     {"toolResult":{"toolUseId","content":[...],"status"}}, results first;
//   - a result whose text is a JSON object is sent as [{"json": object}],
//     any other as one {"text"} block per content string; "status":"error"
//     marks a failed tool (the docs say only some models read status, so
//     "success" is never sent);
//   - --body: {"inferenceConfig":{"maxTokens","temperature"},"toolConfig",
//     "system","messages"}; the model id is part of the URL
//     (/model/M/converse). A history with toolUse blocks also needs
//     "toolConfig", which a transcript does not know: give the tools
//     (--tools);
//   - tools: "toolConfig":{"tools":[{"toolSpec":{"name","description",
//     "inputSchema":{"json"}}}]}
//     (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html);
//     Converse has no answer schema.
//
// Response: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
// output.message.content[] of text and toolUse blocks, stopReason (see
// bedrockCut), usage; the model is not named. Errors are {"message": "..."} with the error type in
// the x-amzn-ErrorType header.

import (
	"encoding/json"

	"github.com/convo-cli/convo/pkg/transcript"
)

type bedrockWire struct{}

func (bedrockWire) objectArgs() bool { return true }

type bedrockText struct {
	Text string `json:"text"`
}

type bedrockMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type bedrockToolUse struct {
	ToolUse struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
}

type bedrockToolResult struct {
	ToolResult struct {
		ToolUseID string `json:"toolUseId"`
		Content   []any  `json:"content"`
		Status    string `json:"status,omitempty"`
	} `json:"toolResult"`
}

type bedrockInferenceConfig struct {
	MaxTokens   int      `json:"maxTokens,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
}

func bedrockTexts(dst []any, texts []string) []any {
	for _, t := range texts {
		dst = append(dst, bedrockText{t})
	}
	return dst
}

type bedrockToolSpec struct {
	ToolSpec struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		InputSchema struct {
			JSON json.RawMessage `json:"json"`
		} `json:"inputSchema"`
	} `json:"toolSpec"`
}

func (bedrockWire) open(j *jsonWriter, r *Request, system []string) {
	j.raw("{")
	if r.Body && (r.MaxTokens > 0 || r.Temperature != nil) {
		j.field("inferenceConfig", bedrockInferenceConfig{r.MaxTokens, r.Temperature})
	}
	if len(r.Tools) > 0 {
		specs := make([]bedrockToolSpec, len(r.Tools))
		for i := range r.Tools {
			t := &r.Tools[i]
			specs[i].ToolSpec.Name, specs[i].ToolSpec.Description = t.Name, t.Description
			specs[i].ToolSpec.InputSchema.JSON = t.params()
		}
		j.field("toolConfig", map[string]any{"tools": specs})
	}
	if len(system) > 0 {
		j.field("system", bedrockTexts(nil, system))
	}
	j.openArray("messages")
}

func (bedrockWire) turn(j *jsonWriter, t *Turn) {
	m := bedrockMessage{Role: string(t.Role)}
	for _, r := range t.Results {
		var b bedrockToolResult
		b.ToolResult.ToolUseID = r.CallID
		if obj, err := argsObject(r.Text()); err == nil && len(r.Texts) > 0 {
			b.ToolResult.Content = []any{map[string]json.RawMessage{"json": obj}}
		} else {
			b.ToolResult.Content = bedrockTexts([]any{}, r.Texts)
		}
		if r.IsError {
			b.ToolResult.Status = "error"
		}
		m.Content = append(m.Content, b)
	}
	m.Content = bedrockTexts(m.Content, t.Texts)
	for _, c := range t.Calls {
		var b bedrockToolUse
		b.ToolUse.ToolUseID, b.ToolUse.Name, b.ToolUse.Input = c.ID, c.Name, c.Input
		m.Content = append(m.Content, b)
	}
	j.elem(m)
}

func (bedrockWire) close(j *jsonWriter) { j.raw("]}") }

// bedrockCut is the finish-reason table: max_tokens, guardrail_intervened,
// content_filtered and model_context_window_exceeded mean cut; end_turn,
// tool_use and stop_sequence are normal ends.
func bedrockCut(reason string) bool {
	switch reason {
	case "max_tokens", "guardrail_intervened", "content_filtered", "model_context_window_exceeded":
		return true
	}
	return false
}

func parseBedrock(body []byte) (*answer, error) {
	var resp struct {
		Output *struct {
			Message struct {
				Content []struct {
					Text    *string `json:"text"`
					ToolUse *struct {
						ToolUseID string          `json:"toolUseId"`
						Name      string          `json:"name"`
						Input     json.RawMessage `json:"input"`
					} `json:"toolUse"`
				} `json:"content"`
			} `json:"message"`
		} `json:"output"`
		StopReason string          `json:"stopReason"`
		Usage      json.RawMessage `json:"usage"`
		// encoding/json matches keys case-insensitively: this also reads
		// the "Message" some AWS errors carry.
		Message string `json:"message"`
	}
	if err := unmarshal("bedrock", body, &resp); err != nil {
		return nil, err
	}
	if resp.Output == nil {
		if resp.Message != "" {
			return nil, &ProviderError{Provider: "bedrock", Message: resp.Message}
		}
		return nil, shapeError("bedrock", "no output")
	}
	a := &answer{finish: resp.StopReason, usage: resp.Usage, cut: bedrockCut(resp.StopReason)}
	var u struct {
		In  int `json:"inputTokens"`
		Out int `json:"outputTokens"`
	}
	if json.Unmarshal(resp.Usage, &u) == nil {
		a.in, a.out = u.In, u.Out
	}
	for _, b := range resp.Output.Message.Content {
		switch {
		case b.ToolUse != nil:
			a.calls = append(a.calls, transcript.ToolCall{ID: b.ToolUse.ToolUseID, Name: b.ToolUse.Name, Arguments: compactArgs(b.ToolUse.Input)})
		case b.Text != nil && *b.Text != "":
			a.texts = append(a.texts, *b.Text)
		}
	}
	return a, nil
}
