package format

// Gemini API generateContent.
//
// Request: https://ai.google.dev/api/generate-content and
// https://ai.google.dev/gemini-api/docs/function-calling, checked against
// google.golang.org/genai's GenerateContentParameters/Content/Part types
// (see gemini_test.go):
//   - the system prompt is "systemInstruction": {"role":"user","parts":
//     [{"text"}...]}, role included as the SDK sends it;
//   - roles are "user" and "model"; one text part per content string;
//   - a tool call is a {"functionCall":{"id","name","args"}} part, args a
//     JSON object; a tool result is a {"functionResponse":{"id","name",
//     "response"}} part in the next user content, before its text;
//   - "response" must be a JSON object, and the SDK documents the keys
//     "output" and "error": a result whose text is a JSON object is sent as
//     it is; any other result is wrapped as {"output": value} (value the
//     parsed JSON when the text is JSON, else the text), and a failed tool's
//     result always as {"error": value};
//   - Gemini 3 models reject a history whose function calls lost their
//     "thoughtSignature" (https://ai.google.dev/gemini-api/docs/thought-signatures):
//     append --from gemini keeps each call's signature under the record's
//     aux "thought_signatures" ({call id: signature}) and render puts it
//     back on the functionCall part;
//   - --body: {"generationConfig":{"maxOutputTokens","temperature"},
//     "systemInstruction","contents"}; the model is part of the URL
//     (models/M:generateContent), not of the body.
//
// Response: https://ai.google.dev/api/generate-content#generatecontentresponse
// candidates[0].content.parts (text, functionCall; parts marked "thought"
// are skipped), candidates[0].finishReason (STOP is complete, anything else
// - MAX_TOKENS, SAFETY, RECITATION... - is cut), usageMetadata,
// modelVersion, responseId; a prompt blocked before any candidate has
// promptFeedback.blockReason; errors are {"error":{"code","message","status"}}.

import (
	"encoding/json"
	"fmt"

	"github.com/convo-cli/convo/pkg/transcript"
)

// thoughtSignaturesKey is the aux key holding Gemini thought signatures.
const thoughtSignaturesKey = "thought_signatures"

// thoughtSignatures returns the signatures kept on rec, by call id.
func thoughtSignatures(rec *transcript.Record) map[string]string {
	raw, ok := rec.Metadata.Aux[thoughtSignaturesKey]
	if !ok {
		return nil
	}
	var m map[string]string
	_ = json.Unmarshal(raw, &m) // a value of another shape is someone else's aux
	return m
}

type geminiWire struct{}

func (geminiWire) objectArgs() bool { return true }

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text             string                  `json:"text,omitempty"`
	FunctionCall     *geminiFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiFunctionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string                  `json:"thoughtSignature,omitempty"`
}

type geminiFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type geminiFunctionResponse struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name"`
	Response any    `json:"response"`
}

type geminiGenerationConfig struct {
	MaxOutputTokens int      `json:"maxOutputTokens,omitempty"`
	Temperature     *float64 `json:"temperature,omitempty"`
}

func (geminiWire) open(j *jsonWriter, o *Options, system []string) {
	j.raw("{")
	if o.Body && (o.MaxTokens > 0 || o.Temperature != nil) {
		j.field("generationConfig", geminiGenerationConfig{o.MaxTokens, o.Temperature})
	}
	if len(system) > 0 {
		// Role "user" as the SDK sends it (the REST docs leave it out; both pass).
		j.field("systemInstruction", geminiContent{Role: "user", Parts: geminiTexts(nil, system)})
	}
	j.openArray("contents")
}

func geminiTexts(dst []geminiPart, texts []string) []geminiPart {
	for _, t := range texts {
		dst = append(dst, geminiPart{Text: t})
	}
	return dst
}

func (geminiWire) turn(j *jsonWriter, t *Turn) {
	c := geminiContent{Role: "user"}
	if t.Role == transcript.RoleAssistant {
		c.Role = "model"
	}
	for _, r := range t.Results {
		c.Parts = append(c.Parts, geminiPart{FunctionResponse: &geminiFunctionResponse{ID: r.CallID, Name: r.Name, Response: geminiResponse(&r)}})
	}
	c.Parts = geminiTexts(c.Parts, t.Texts)
	for _, call := range t.Calls {
		args := call.Input
		if string(args) == "{}" {
			args = nil // optional, and the SDK leaves an empty map out too
		}
		c.Parts = append(c.Parts, geminiPart{
			FunctionCall:     &geminiFunctionCall{ID: call.ID, Name: call.Name, Args: args},
			ThoughtSignature: call.Signature,
		})
	}
	j.elem(c)
}

// geminiResponse is a result as the JSON object functionResponse needs.
func geminiResponse(r *Result) any {
	text := r.Text()
	if !r.IsError {
		if obj, err := argsObject(text); err == nil && text != "" {
			return obj
		}
		return map[string]any{"output": rawJSON(text)}
	}
	return map[string]any{"error": rawJSON(text)}
}

func (geminiWire) close(j *jsonWriter) { j.raw("]}") }

func parseGemini(body []byte, newID func() string) (*answer, error) {
	if msg, ok := errorMessage(body); ok {
		return nil, &ProviderError{"gemini", msg}
	}
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text         string `json:"text"`
					Thought      bool   `json:"thought"`
					FunctionCall *struct {
						ID   string          `json:"id"`
						Name string          `json:"name"`
						Args json.RawMessage `json:"args"`
					} `json:"functionCall"`
					ThoughtSignature string `json:"thoughtSignature"`
				} `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		PromptFeedback *struct {
			BlockReason string `json:"blockReason"`
		} `json:"promptFeedback"`
		UsageMetadata json.RawMessage `json:"usageMetadata"`
		ModelVersion  string          `json:"modelVersion"`
		ResponseID    string          `json:"responseId"`
	}
	if err := unmarshal("gemini", body, &resp); err != nil {
		return nil, err
	}
	if len(resp.Candidates) == 0 {
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			return nil, &ProviderError{"gemini", fmt.Sprintf("prompt blocked (blockReason %s)", pf.BlockReason)}
		}
		return nil, shapeError("gemini", "no candidates")
	}
	c := resp.Candidates[0]
	a := &answer{model: resp.ModelVersion, responseID: resp.ResponseID, finish: c.FinishReason, usage: resp.UsageMetadata}
	a.cut = c.FinishReason != "" && c.FinishReason != "STOP"
	for _, p := range c.Content.Parts {
		switch {
		case p.Thought:
		case p.FunctionCall != nil:
			id := p.FunctionCall.ID
			if id == "" {
				id = newID()
			}
			a.calls = append(a.calls, transcript.ToolCall{ID: id, Name: p.FunctionCall.Name, Arguments: compactArgs(p.FunctionCall.Args)})
			if p.ThoughtSignature != "" {
				if a.signatures == nil {
					a.signatures = map[string]string{}
				}
				a.signatures[id] = p.ThoughtSignature
			}
		case p.Text != "":
			a.texts = append(a.texts, p.Text)
		}
	}
	return a, nil
}
