package llm

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/convo-cli/convo/pkg/format"
)

// testKey is the API key every test transport sends. No error text or
// reply may ever contain it.
const testKey = "sk-test-4f1c2b9e-SECRET"

func TestFromEnv(t *testing.T) {
	env := map[string]string{
		"GEMINI_API_KEY": "g-key", "GOOGLE_GEMINI_BASE_URL": "http://gemini.test",
		"OPENAI_API_KEY": "o-key", "OPENAI_BASE_URL": "http://vllm.test/v1",
		"ANTHROPIC_API_KEY": "a-key", "ANTHROPIC_BASE_URL": "http://anthropic.test",
		"OLLAMA_HOST": "10.0.0.5",
	}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		provider string
		want     Options
	}{
		{"gemini", Options{APIKey: "g-key", BaseURL: "http://gemini.test"}},
		{"openai", Options{APIKey: "o-key", BaseURL: "http://vllm.test/v1"}},
		{"anthropic", Options{APIKey: "a-key", BaseURL: "http://anthropic.test"}},
		{"ollama", Options{BaseURL: "10.0.0.5"}},
		{"exec", Options{}},
	} {
		got := FromEnv(tc.provider, getenv)
		if got.APIKey != tc.want.APIKey || got.BaseURL != tc.want.BaseURL {
			t.Errorf("FromEnv(%s) = %+v, want %+v", tc.provider, got, tc.want)
		}
	}
}

// TestOllamaHost: OLLAMA_HOST is read as the ollama CLI reads it: a bare
// host or host:port means http and port 11434; a URL keeps its scheme and
// port.
func TestOllamaHost(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"127.0.0.1":                "http://127.0.0.1:11434",
		"0.0.0.0:8080":             "http://0.0.0.0:8080",
		"[::1]":                    "http://[::1]:11434",
		"gpu-box:11434/":           "http://gpu-box:11434",
		"https://ollama.example":   "https://ollama.example",
		"http://localhost:11434":   "http://localhost:11434",
		"http://proxy.test/ollama": "http://proxy.test/ollama",
	} {
		if got := ollamaHost(in); got != want {
			t.Errorf("ollamaHost(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNew(t *testing.T) {
	awsEnv(t, map[string]string{"AWS_REGION": "us-east-1"})
	for _, p := range format.Names(format.CanCall) {
		c, err := New(p, Options{APIKey: testKey})
		if err != nil {
			t.Errorf("New(%s): %v", p, err)
			continue
		}
		if c.Name() != p {
			t.Errorf("New(%s).Name() = %s", p, c.Name())
		}
	}
	for _, p := range []string{"vercel", "exec"} {
		if _, err := New(p, Options{}); err == nil || !strings.Contains(err.Error(), "unknown provider") {
			t.Errorf("New(%s) = %v", p, err)
		}
	}
	// A missing key is named by its variable, before anything is sent.
	for _, p := range []string{"gemini", "openai", "anthropic"} {
		_, err := New(p, Options{})
		prov, _ := format.Lookup(p)
		if !errors.Is(err, ErrMissingKey) || !strings.Contains(err.Error(), prov.KeyEnv) {
			t.Errorf("New(%s) without key = %v", p, err)
		}
	}
	// Local servers need none.
	if _, err := New("openai", Options{BaseURL: "http://localhost:8080/v1"}); err != nil {
		t.Errorf("openai with a base URL and no key: %v", err)
	}
	if _, err := New("ollama", Options{}); err != nil {
		t.Errorf("ollama: %v", err)
	}
	if _, err := New("openai", Options{BaseURL: "localhost:8080"}); err == nil {
		t.Error("openai with a relative base URL: no error")
	}
}

// TestGeminiIgnoresEnvironment: the SDK reads GOOGLE_* variables on its own
// when left to; the transport must not let it.
func TestGeminiIgnoresEnvironment(t *testing.T) {
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://wrong.invalid")
	t.Setenv("GEMINI_API_KEY", "env-key")
	if _, err := New("gemini", Options{}); !errors.Is(err, ErrMissingKey) {
		t.Errorf("gemini without key took the environment's: %v", err)
	}
	c, err := New("gemini", Options{APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	cc := c.(*gemini).client.ClientConfig()
	if p, _ := format.Lookup("gemini"); cc.Backend != genai.BackendGeminiAPI || cc.HTTPOptions.BaseURL != p.BaseURL {
		t.Errorf("backend %v, base URL %q", cc.Backend, cc.HTTPOptions.BaseURL)
	}
}
