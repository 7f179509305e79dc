package format

import (
	"slices"
	"strings"
	"testing"
)

// TestRegistry: every capability a provider claims is backed by code, and
// the lists derived from the registry are the ones the docs name.
func TestRegistry(t *testing.T) {
	for _, p := range registry {
		if p.CanDo(CanRender) != (p.newWire != nil) || p.CanDo(CanParse) != (p.parse != nil) {
			t.Errorf("%s: capabilities %b do not match its code", p.Name, p.Can)
		}
		if p.CanDo(CanCall) && (p.BaseURL == "" || p.BaseURLEnv == "" || !p.CanDo(CanRender|CanParse)) {
			t.Errorf("%s: callable without an endpoint, or without a body to send and read", p.Name)
		}
		if p.Name == "anthropic" && p.MaxTokens != 4096 {
			t.Errorf("anthropic's default output limit is %d", p.MaxTokens)
		}
	}
	for c, want := range map[Capability][]string{
		CanRender: {"openai", "openai-responses", "anthropic", "gemini", "bedrock", "vercel", "vercel-legacy", "ollama"},
		CanParse:  {"openai", "openai-responses", "anthropic", "gemini", "bedrock", "ollama"},
		CanCall:   {"openai", "openai-responses", "anthropic", "gemini", "bedrock", "ollama"},
	} {
		if got := Names(c); !slices.Equal(got, want) {
			t.Errorf("Names(%b) = %v, want %v", c, got, want)
		}
	}
	if _, ok := Lookup("cohere"); ok {
		t.Error("Lookup found cohere")
	}
	if p, ok := Lookup("gemini"); !ok || !p.ModelInURL || p.KeyEnv != "GEMINI_API_KEY" {
		t.Errorf("Lookup(gemini) = %+v", p)
	}
}

// TestAPIVersion: anthropic's versions, the default first; one whose
// request has no temperature refuses one; an unknown one is refused; a
// provider without versions ignores the field.
func TestAPIVersion(t *testing.T) {
	temp := 0.5
	for _, c := range []struct {
		provider, version string
		temperature       *float64
		err               string
	}{
		{"anthropic", "", &temp, ""},
		{"anthropic", "2023-06-01", &temp, ""},
		{"anthropic", "2026-10-21", nil, ""},
		{"anthropic", "2026-10-21", &temp, "takes no temperature"},
		{"anthropic", "2099-01-01", nil, `want one of 2023-06-01, 2026-10-21`},
		{"openai", "2026-10-21", &temp, ""},
	} {
		req := Request{Provider: c.provider, APIVersion: c.version, Temperature: c.temperature, Body: true, Model: "m"}
		err := req.Check()
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s %q: err %v, want %q", c.provider, c.version, err, c.err)
		}
	}
	if p, _ := Lookup("anthropic"); p.APIVersions[0].Name != "2023-06-01" {
		t.Errorf("anthropic's default version is %s", p.APIVersions[0].Name)
	}
}
