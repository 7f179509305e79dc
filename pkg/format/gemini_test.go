package format

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// geminiRequest is the generateContent body in the SDK's own types.
type geminiRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
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
			if !sameJSON(t, out, string(back)) {
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

// TestGeminiThroughSDK sends the rendered conversation through the SDK's
// GenerateContent to a local server: the body the SDK puts on the wire is
// the body render printed, and the server's answer (the docs' function call
// example) parses back with ParseResponse.
func TestGeminiThroughSDK(t *testing.T) {
	var input string
	for _, c := range renderCases {
		if c.name == "parallel_tools" {
			input = c.input
		}
	}
	opt := Options{Body: true, MaxTokens: 256, Temperature: ptr(0.5), System: []string{"Be brief."}}
	out, _, err := render(t, "gemini", input, opt)
	if err != nil {
		t.Fatal(err)
	}
	req := decodeGemini(t, out)

	const answer = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"set_light_values","args":{"brightness":25,"color_temp":"warm"}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":8,"totalTokenCount":18},"modelVersion":"gemini-2.5-flash"}`
	var sent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sent = string(b)
		if !strings.HasSuffix(r.URL.Path, "/models/gemini-2.5-flash:generateContent") {
			t.Errorf("path %s", r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	defer srv.Close()

	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: req.SystemInstruction,
		MaxOutputTokens:   req.GenerationConfig.MaxOutputTokens,
		Temperature:       req.GenerationConfig.Temperature,
	}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", req.Contents, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, out, sent) {
		t.Errorf("the SDK sent another body:\nrender %s\nsdk    %s", out, sent)
	}
	if len(resp.FunctionCalls()) != 1 {
		t.Errorf("SDK read %d function calls", len(resp.FunctionCalls()))
	}
	rec, err := ParseResponse("gemini", strings.NewReader(answer), testIDs())
	if err != nil {
		t.Fatal(err)
	}
	fc := resp.FunctionCalls()[0]
	args, _ := json.Marshal(fc.Args)
	if got := rec.Message.ToolCalls[0]; got.Name != fc.Name || got.Arguments != string(args) {
		t.Errorf("ParseResponse read %+v, the SDK %s %s", got, fc.Name, args)
	}
}
