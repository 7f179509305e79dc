package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestServer: each provider's path is answered in its format, a stream when
// asked, and the request is recorded with the key masked.
func TestServer(t *testing.T) {
	const key = "sk-fake-KEY"
	for _, tc := range []struct {
		provider, path, body, streamBody, ctype string
		header                                  map[string]string
	}{
		{"openai", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, "text/event-stream",
			map[string]string{"Authorization": "Bearer " + key}},
		{"anthropic", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			`{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, "text/event-stream",
			map[string]string{"X-Api-Key": key}},
		{"gemini", "/v1beta/models/g1:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
			"", "text/event-stream", map[string]string{"X-Goog-Api-Key": key}},
		{"ollama", "/api/chat", `{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}]}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "application/x-ndjson", nil},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			s := Start(Options{Key: key, Steps: []Step{{Answer: &Answer{Text: "Paris."}}}})
			defer s.Close()
			res, body := post(t, s.URL+tc.path, tc.header, tc.body)
			if res.StatusCode != 200 || !json.Valid([]byte(body)) || !strings.Contains(body, "Paris.") {
				t.Fatalf("%d %s", res.StatusCode, body)
			}
			streamPath, streamBody := tc.path, tc.streamBody
			if tc.provider == "gemini" {
				streamPath, streamBody = "/v1beta/models/g1:streamGenerateContent", tc.body
			}
			res, body = post(t, s.URL+streamPath+"?alt=sse", tc.header, streamBody)
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != tc.ctype || !strings.Contains(body, "Par") {
				t.Fatalf("stream: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), body)
			}
			reqs := s.Requests()
			if len(reqs) != 2 || reqs[0].Provider != tc.provider || reqs[0].Stream || !reqs[1].Stream || reqs[0].Model == "" {
				t.Fatalf("requests %+v", reqs)
			}
			for k, v := range tc.header {
				if got := reqs[0].Header.Get(k); strings.Contains(got, key) || !strings.Contains(got, "[KEY]") {
					t.Errorf("%s recorded as %q (sent %q)", k, got, v)
				}
			}
			if tc.provider != "ollama" {
				res, body = post(t, s.URL+tc.path, nil, tc.body)
				if res.StatusCode != 401 {
					t.Errorf("no key: %d %s", res.StatusCode, body)
				}
			}
		})
	}
}

func TestServerRefuses(t *testing.T) {
	s := New(t)
	for path, body := range map[string]string{
		"/v1/messages":         `{"model":"m","max_tokens":10,"messages":[{"role":"assistant","content":"hi"},{"role":"user","content":"x"}]}`,
		"/v1/chat/completions": `not json`,
		"/nowhere":             `{}`,
	} {
		if res, out := post(t, s.URL+path, nil, body); res.StatusCode/100 != 4 {
			t.Errorf("%s %s: %d %s", path, body, res.StatusCode, out)
		}
	}
	_, out := post(t, s.URL+"/v1/messages", nil, `{"model":"m","max_tokens":10,"messages":[{"role":"assistant","content":"hi"}]}`)
	if !strings.Contains(out, "roles must alternate") {
		t.Errorf("%s", out)
	}
}

// TestSteps: steps play in order and the last repeats; an error step
// writes the provider's error body with its status and headers.
func TestSteps(t *testing.T) {
	s := New(t, Step{Status: 429, Header: map[string]string{"Retry-After": "3"}, Error: "slow down"}, Step{Body: "<html>"})
	body := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
	res, out := post(t, s.URL+"/v1/messages", nil, body)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "3" || !strings.Contains(out, `"rate_limit_error"`) {
		t.Errorf("%d %v %s", res.StatusCode, res.Header, out)
	}
	for range 2 {
		if _, out := post(t, s.URL+"/v1/messages", nil, body); out != "<html>" {
			t.Errorf("%s", out)
		}
	}
}
