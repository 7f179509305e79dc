package format

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/convo-cli/convo/pkg/transcript"
)

// geminiRequest is the generateContent body in the SDK's own types.
type geminiRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
}

// TestGeminiSDKTypes decodes every rendered gemini body into
// google.golang.org/genai's request types, refusing unknown fields, and
// encodes it back: nothing may be lost on the way.
func TestGeminiSDKTypes(t *testing.T) {
	for _, c := range renderCases {
		t.Run(c.name, func(t *testing.T) {
			opt := c.opt
			opt.Model = ""
			out, _, err := render(t, "gemini", c.input, opt)
			if err != nil {
				t.Fatal(err)
			}
			req := decodeGemini(t, out)
			back, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			// The Go SDK leaves an empty "args" out; the API sends and
			// takes "args": {}, which convo keeps.
			if ours := strings.ReplaceAll(out, `,"args":{}`, ""); !sameJSON(t, ours, string(back)) {
				t.Errorf("lost in the SDK's types:\nours %s\nsdk  %s", out, back)
			}
		})
	}
}

func decodeGemini(t *testing.T, body string) *geminiRequest {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	var req geminiRequest
	if err := dec.Decode(&req); err != nil {
		t.Fatalf("not a genai request: %v\n%s", err, body)
	}
	return &req
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// TestGeminiSDKTypesWithTools: a body with tools and an answer schema is
// one the SDK's request types hold too.
func TestGeminiSDKTypesWithTools(t *testing.T) {
	var out strings.Builder
	req := Request{Provider: "gemini", Body: true, MaxTokens: 256, Temperature: ptr(0.5), System: []string{"Be brief."},
		Tools:    []Tool{{Name: "get_weather", Description: "Weather", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Schema:   json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`),
		Messages: []transcript.Record{{ID: "u", Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Hi"}}}}}
	if err := Render(&out, req); err != nil {
		t.Fatal(err)
	}
	got := decodeGemini(t, out.String())
	back, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, out.String(), string(back)) || len(got.Tools) != 1 || got.GenerationConfig.ResponseMIMEType != "application/json" {
		t.Errorf("lost in the SDK's types:\nours %s\nsdk  %s", out.String(), back)
	}
}
