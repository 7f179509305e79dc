package format

import (
	"slices"
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
