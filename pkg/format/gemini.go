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
//   - --body: {"generationConfig":{"maxOutputTokens","temperature",
//     "responseMimeType","responseJsonSchema"},"tools","systemInstruction",
//     "contents"}; the model is part of the URL (models/M:generateContent,
//     models/M:streamGenerateContent?alt=sse for a stream), not of the body;
//   - tools: "tools":[{"functionDeclarations":[{"name","description",
//     "parametersJsonSchema"}]}]; an answer schema: generationConfig
//     "responseMimeType":"application/json" and "responseJsonSchema"
//     (https://ai.google.dev/gemini-api/docs/structured-output).
//
// pkg/llm sends this body through the SDK as it is (see pkg/llm/gemini.go).
//
// Response: https://ai.google.dev/api/generate-content#generatecontentresponse
// candidates[0].content.parts (text, functionCall; parts marked "thought"
// are skipped), candidates[0].finishReason (see geminiCut), usageMetadata,
// modelVersion, responseId; a prompt blocked before any candidate has
// promptFeedback.blockReason, an incomplete answer; errors are
// {"error":{"code","message","status"}}.

import (
	"encoding/json"

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

type geminiWire struct {
	// noID holds the calls of the last model turn that Gemini sent without
	// an id: their results go back without one too.
	noID map[string]bool
}

func (*geminiWire) objectArgs() bool { return true }

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
	Args json.RawMessage `json:"args"`
}

type geminiFunctionResponse struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name"`
	Response any    `json:"response"`
}

type geminiGenerationConfig struct {
	MaxOutputTokens    int             `json:"maxOutputTokens,omitempty"`
	Temperature        *float64        `json:"temperature,omitempty"`
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
}

type geminiTool struct {
	FunctionDeclarations []geminiFunctionDeclaration `json:"functionDeclarations"`
}

type geminiFunctionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

func (*geminiWire) open(j *jsonWriter, r *Request, system []string) {
	j.raw("{")
	if r.Body {
		if r.MaxTokens > 0 || r.Temperature != nil || len(r.Schema) > 0 {
			g := geminiGenerationConfig{MaxOutputTokens: r.MaxTokens, Temperature: r.Temperature}
			if len(r.Schema) > 0 {
				g.ResponseMimeType, g.ResponseJSONSchema = "application/json", r.Schema
			}
			j.field("generationConfig", g)
		}
		if len(r.Tools) > 0 {
			decls := make([]geminiFunctionDeclaration, 0, len(r.Tools))
			for _, t := range r.Tools {
				decls = append(decls, geminiFunctionDeclaration{t.Name, t.Description, t.Parameters})
			}
			j.field("tools", []geminiTool{{decls}})
		}
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

func (w *geminiWire) turn(j *jsonWriter, t *Turn) {
	c := geminiContent{Role: "user"}
	if t.Role == transcript.RoleAssistant {
		c.Role = "model"
	}
	for _, r := range t.Results {
		id := r.CallID
		if w.noID[id] {
			id = "" // Gemini gave the call none: convo made this one up
		}
		c.Parts = append(c.Parts, geminiPart{FunctionResponse: &geminiFunctionResponse{ID: id, Name: r.Name, Response: geminiResponse(&r)}})
	}
	if t.Role == transcript.RoleUser {
		c.Parts = geminiTexts(c.Parts, t.Texts)
		j.elem(c)
		return
	}
	clear(w.noID)
	for _, o := range t.Items {
		if o.replaces && o.call != "" && !geminiCallHasID(o.item) {
			if w.noID == nil {
				w.noID = map[string]bool{}
			}
			w.noID[o.call] = true
		}
	}
	var parts []any
	t.walk(func(p piece) {
		switch {
		case p.item != nil:
			parts = append(parts, p.item)
		case p.text >= 0:
			parts = append(parts, geminiPart{Text: t.Texts[p.text]})
		default:
			call := &t.Calls[p.call]
			args := call.Input
			if len(args) == 0 {
				args = json.RawMessage("{}") // "args": {} stays, as Gemini sent it
			}
			parts = append(parts, geminiPart{
				FunctionCall:     &geminiFunctionCall{ID: call.ID, Name: call.Name, Args: args},
				ThoughtSignature: call.Signature,
			})
		}
	})
	j.elem(struct {
		Role  string `json:"role"`
		Parts []any  `json:"parts"`
	}{c.Role, parts})
}

// geminiCallHasID reports whether a functionCall part carries an id.
func geminiCallHasID(part json.RawMessage) bool {
	var p struct {
		FunctionCall *struct {
			ID string `json:"id"`
		} `json:"functionCall"`
	}
	return json.Unmarshal(part, &p) == nil && p.FunctionCall != nil && p.FunctionCall.ID != ""
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

func (*geminiWire) close(j *jsonWriter) { j.raw("]}") }

// geminiCut is the finish-reason table: STOP is a normal end, and so is an
// unset reason ("" or FINISH_REASON_UNSPECIFIED, which the API documents
// as unused): an answer that came whole without one is no cut one, and
// one with nothing in it is incomplete as empty. Any other reason -
// MAX_TOKENS, SAFETY, RECITATION, LANGUAGE, BLOCKLIST, PROHIBITED_CONTENT,
// SPII, MALFORMED_FUNCTION_CALL, OTHER... - means cut.
func geminiCut(reason string) bool {
	switch reason {
	case "", "STOP", "FINISH_REASON_UNSPECIFIED":
		return false
	}
	return true
}

// geminiRespPart is a response part, the fields convo reads; raw is the part
// as sent, for provider data.
type geminiRespPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionResponse"`
	ThoughtSignature string `json:"thoughtSignature"`
}

func parseGemini(body []byte) (*answer, error) {
	if err := errorBody("gemini", body); err != nil {
		return nil, err
	}
	var resp struct {
		Candidates []*struct {
			Content struct {
				Parts []json.RawMessage `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		PromptFeedback *struct {
			BlockReason string `json:"blockReason"`
		} `json:"promptFeedback"`
		UsageMetadata json.RawMessage `json:"usageMetadata"`
		ModelVersion  string          `json:"modelVersion"`
		ResponseID    string          `json:"responseId"`
		CreateTime    json.RawMessage `json:"createTime"`
	}
	if err := unmarshal("gemini", body, &resp); err != nil {
		return nil, err
	}
	a := &answer{model: resp.ModelVersion, responseID: resp.ResponseID, usage: resp.UsageMetadata, created: createdAt(resp.CreateTime)}
	var u struct {
		Prompt     int `json:"promptTokenCount"`
		Candidates int `json:"candidatesTokenCount"`
		Thoughts   int `json:"thoughtsTokenCount"`
	}
	if json.Unmarshal(resp.UsageMetadata, &u) == nil {
		// Thinking tokens are generated and billed as output too.
		a.in, a.out = u.Prompt, u.Candidates+u.Thoughts
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			a.blocked, a.finish = pf.BlockReason, pf.BlockReason
			return a, nil
		}
		return nil, shapeError("gemini", "no candidates")
	}
	c := resp.Candidates[0]
	a.finish, a.cut = c.FinishReason, geminiCut(c.FinishReason)
	parts := make([]geminiRespPart, len(c.Content.Parts))
	// A call whose response is in the same turn ran on Google's side:
	// it is no call for the client to answer.
	answered := map[string]bool{}
	for i, raw := range c.Content.Parts {
		if err := json.Unmarshal(raw, &parts[i]); err != nil {
			return nil, shapeError("gemini", "part %d: %v", i, err)
		}
		if r := parts[i].FunctionResponse; r != nil {
			answered[r.ID+"\x00"+r.Name] = true
		}
	}
	var textParts []json.RawMessage
	signedText := false
	for i, p := range parts {
		raw := c.Content.Parts[i]
		switch {
		case p.Thought:
			if p.ThoughtSignature != "" {
				a.keep(raw)
			}
		case p.FunctionCall != nil && answered[p.FunctionCall.ID+"\x00"+p.FunctionCall.Name]:
			a.keep(raw)
		case p.FunctionCall != nil:
			if p.FunctionCall.ID == "" || p.ThoughtSignature != "" {
				// Sent back as it came: without the id convo makes up,
				// with its signature.
				a.keepForCall(raw)
			}
			a.calls = append(a.calls, transcript.ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: compactArgs(p.FunctionCall.Args)})
		case p.Text != nil && *p.Text != "":
			// One answer's text parts are pieces of one text (a part may
			// end mid-word): joined with nothing, as the SDK's Text does.
			if len(a.texts) == 0 {
				a.texts = append(a.texts, *p.Text)
			} else {
				a.texts[0] += *p.Text
			}
			textParts = append(textParts, raw)
			signedText = signedText || p.ThoughtSignature != ""
		case p.Text != nil && p.ThoughtSignature == "":
			// an empty text part: nothing
		default:
			// Parts convo has no field for (a function response or code
			// execution of Google's side, a signature on an empty part):
			// sent back in their place.
			a.keep(raw)
		}
	}
	if signedText {
		for _, raw := range textParts {
			a.keepForText(raw, 0)
		}
	}
	return a, nil
}
