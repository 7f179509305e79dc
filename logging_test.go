package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/providertest"
)

// TestLoggingNeverShowsTheKey runs commands at --log-level debug
// --log-format json with an API key in the environment, a summarize
// through a fake OpenAI server among them (a 429 first, so a retry
// happens): every stderr line is one JSON object, and none holds the key
// or any message text.
func TestLoggingNeverShowsTheKey(t *testing.T) {
	p := providers[0]
	if p.name != "openai" {
		t.Fatalf("providers[0] is %s", p.name)
	}
	srv := startFake(t, p, providertest.Step{Status: 429, Header: map[string]string{"Retry-After": "1"}, Error: "slow down"},
		providertest.Step{Answer: &providertest.Answer{Text: "## Goal\n- Plan the Lisbon trip; order #4000 placed."}})
	t.Setenv("ANTHROPIC_API_KEY", secretKey)
	t.Setenv("GEMINI_API_KEY", secretKey)
	db := filepath.Join(t.TempDir(), "convo.db")
	seed(t, db, "c", 12)

	debug := []string{"--db", db, "--log-level", "debug", "--log-format", "json", "-q"}
	var stderr strings.Builder
	for _, args := range [][]string{
		{"append", "-c", "c", "the Lisbon trip again"},
		{"summarize", "-c", "c", "--keep-last", "2", "--summarizer", p.name, "--model", "m1"},
		{"get", "-c", "c"},
		{"show", "-c", "c"},
		{"list", "--json"},
		{"export", "-c", "c", "--incremental"},
		{"annotate", "-c", "c", "--id", "last", "--timing", "playStart=now"},
		{"fork", "-c", "c", "--to", "d"},
		{"rewind", "-c", "d", "--to", "last-assistant", "--yes"},
		{"render", "-c", "c", "--provider", "openai"},
		{"prune", "--keep-summaries"},
	} {
		_, errOut, code := run(t, "", append(debug, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		stderr.WriteString(errOut)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Header.Get("Authorization") != "Bearer [KEY]" {
		t.Fatalf("the server saw %d calls: %+v", len(reqs), reqs)
	}

	msgs := map[string]map[string]any{}
	for i, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stderr line %d is not JSON: %v\n%s", i+1, err, line)
		}
		for _, secret := range []string{secretKey, "SECRET-1234", "Lisbon", "order #", "Plan the"} {
			if strings.Contains(line, secret) {
				t.Fatalf("stderr line %d holds %q:\n%s", i+1, secret, line)
			}
		}
		msgs[m["msg"].(string)] = m
	}
	// What was called, read and written is there.
	call, ok := msgs["provider answered"]
	if !ok || call["level"] != "INFO" || call["provider"] != "openai" || call["model"] == "" ||
		call["latency_ms"] == nil || call["input_tokens"] != 19.0 || call["output_tokens"] != 10.0 {
		t.Fatalf("provider call: %v", call)
	}
	for _, want := range []string{"run", "opened store", "appended", "summarized", "stored summary", "read records",
		"read for export", "moved export cursor", "annotated record", "forked conversation", "rewound conversation", "pruned", "provider retry"} {
		if _, ok := msgs[want]; !ok {
			t.Errorf("no %q line in:\n%s", want, stderr.String())
		}
	}
}
