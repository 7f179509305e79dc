package llm

import (
	"encoding/json"
	"errors"
	"testing"

	"google.golang.org/genai"
)

// TestIncompleteReasons: every finish reason that means cut or refused is
// surfaced, and the normal ones are not.
func TestIncompleteReasons(t *testing.T) {
	for _, tc := range []struct {
		provider, body, want string
	}{
		{"openai", `{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}`, ""},
		{"openai", `{"choices":[{"message":{"content":"cut"},"finish_reason":"length"}]}`, "length"},
		{"openai", `{"choices":[{"message":{"content":""},"finish_reason":"content_filter"}]}`, "content_filter"},
		{"openai", `{"choices":[{"message":{"content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`, "refusal"},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn"}`, ""},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":"ok"}],"stop_reason":"stop_sequence"}`, ""},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":"cut"}],"stop_reason":"max_tokens"}`, "max_tokens"},
		{"anthropic", `{"type":"message","content":[],"stop_reason":"refusal"}`, "refusal"},
		{"anthropic", `{"type":"message","content":[{"type":"text","text":"cut"}],"stop_reason":"model_context_window_exceeded"}`, "model_context_window_exceeded"},
		{"gemini", `{"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`, ""},
		{"gemini", `{"candidates":[{"content":{"parts":[{"text":"cut"}]},"finishReason":"MAX_TOKENS"}]}`, "MAX_TOKENS"},
		{"gemini", `{"candidates":[{"finishReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH","blocked":true}]}]}`, "SAFETY"},
		{"gemini", `{"candidates":[{"content":{"parts":[{"text":"It was the best"}]},"finishReason":"RECITATION"}]}`, "RECITATION"},
		{"gemini", `{"candidates":[{"finishReason":"PROHIBITED_CONTENT"}]}`, "PROHIBITED_CONTENT"},
		{"gemini", `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]}}`, "SAFETY"},
	} {
		resp, reason, err := decode(tc.provider, []byte(tc.body))
		if err != nil {
			t.Errorf("%s %s: %v", tc.provider, tc.body, err)
			continue
		}
		if reason != tc.want {
			t.Errorf("%s %s: reason %q, want %q", tc.provider, tc.body, reason, tc.want)
		}
		_, err = settle(tc.provider, resp, reason)
		var inc *IncompleteError
		if tc.want != "" && (!errors.As(err, &inc) || inc.Reason != tc.want) {
			t.Errorf("%s %s: settle = %v", tc.provider, tc.body, err)
		}
	}
}

func TestGeminiText(t *testing.T) {
	// Thought summaries are not the answer; several text parts are.
	resp, _, err := decode("gemini", []byte(`{"candidates":[{"content":{"role":"model","parts":[
		{"text":"Let me think...","thought":true},{"text":"Paris "},{"text":"it is."}]},"finishReason":"STOP"}],
		"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"thoughtsTokenCount":40}}`))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Paris it is." || resp.Usage != (Usage{InputTokens: 5, OutputTokens: 43}) {
		t.Errorf("resp = %+v", resp)
	}
}

// decode runs the response parser of provider over body, the way its client
// does after a 2xx.
func decode(provider string, body []byte) (Response, string, error) {
	switch provider {
	case "openai":
		return decodeOpenAI("openai", body)
	case "anthropic":
		return decodeAnthropic(body)
	case "gemini":
		var r genai.GenerateContentResponse
		if err := json.Unmarshal(body, &r); err != nil {
			return Response{}, "", err
		}
		resp, reason := fromGemini(&r, body)
		return resp, reason, nil
	}
	panic(provider)
}

// The fuzz targets: no body makes a parser panic, and a parser that accepts
// a body returns a Response consistent with it.

func FuzzDecodeOpenAI(f *testing.F) {
	for _, s := range []string{"ok", "length", "empty"} {
		f.Add(readTestdata(f, "openai_"+s+".json"))
	}
	f.Add([]byte(`{"choices":[],"error":{"message":"x"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, reason, err := decodeOpenAI("openai", body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is no *Error", err)
			}
			return
		}
		if string(resp.Raw) != string(body) {
			t.Fatal("Raw is not the body")
		}
		settle("openai", resp, reason)
	})
}

func FuzzDecodeAnthropic(f *testing.F) {
	for _, s := range []string{"ok", "length", "empty"} {
		f.Add(readTestdata(f, "anthropic_"+s+".json"))
	}
	f.Add([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, reason, err := decodeAnthropic(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is no *Error", err)
			}
			return
		}
		settle("anthropic", resp, reason)
	})
}

func FuzzDecodeGemini(f *testing.F) {
	for _, s := range []string{"ok", "length", "empty"} {
		f.Add(readTestdata(f, "gemini_"+s+".json"))
	}
	f.Add([]byte(`{"candidates":[null,{}],"promptFeedback":{"blockReason":"OTHER"}}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[null,{"text":"a"}]}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, reason, err := decode("gemini", body)
		if err == nil {
			settle("gemini", resp, reason)
		}
	})
}

func FuzzJSONErrorMessage(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"Invalid model"}}`))
	f.Add([]byte(`{"error":"not found"}`))
	f.Add([]byte(`{"detail":"Not Found"}`))
	f.Add([]byte("<html>\xff\xfe</html>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if msg := jsonErrorMessage(body); len(msg) > len(body)+3 && len(msg) > 303 {
			t.Fatalf("message of %d bytes from a %d-byte body", len(msg), len(body))
		}
	})
}

func FuzzRetryAfter(f *testing.F) {
	f.Add("7", "")
	f.Add("Wed, 16 Apr 2025 12:00:30 GMT", "")
	f.Add("", "1500")
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := make(map[string][]string)
		h["Retry-After"], h["Retry-After-Ms"] = []string{ra}, []string{ms}
		if d := retryAfter(h, timeZero); d < 0 {
			t.Fatalf("negative delay %v", d)
		}
	})
}
