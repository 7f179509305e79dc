package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/iostreams"
)

// Every numeric, duration and rate flag refuses what it cannot mean (NaN,
// infinities, negatives, overflow) with exit 2 naming the flag, before
// anything is read, asked or stored.
func TestNumericFlagsRefused(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "sk-unused")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	db := filepath.Join(t.TempDir(), "convo.db")
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"--summarize-if-over", []string{"append", "-c", "x", "--summarize-if-over", "-1", "hi"}},
		{"--keep-last", []string{"append", "-c", "x", "--summarize-if-over", "100", "--keep-last", "-1", "hi"}},
		{"--temperature", []string{"ask", "-c", "x", "--provider", "openai", "--temperature", "NaN", "hi"}},
		{"--temperature", []string{"ask", "-c", "x", "--provider", "openai", "--temperature", "Inf", "hi"}},
		{"--temperature", []string{"render", "--provider", "openai", "--body", "--model", "m", "--temperature", "NaN"}},
		{"--temperature", []string{"render", "--provider", "openai", "--body", "--model", "m", "--temperature", "+Inf"}},
		{"--timeout", []string{"ask", "-c", "x", "--provider", "openai", "--timeout", "-1s", "hi"}},
		{"--timeout", []string{"ask", "-c", "x", "--provider", "openai", "--timeout", "99999999h", "hi"}},
		{"--max-tokens", []string{"ask", "-c", "x", "--provider", "openai", "--max-tokens", "-1", "hi"}},
		{"--max-tokens", []string{"ask", "-c", "x", "--provider", "openai", "--max-tokens", "99999999999999999999", "hi"}},
		{"--rate", []string{"ask", "-c", "x", "--provider", "openai", "--rate", "1000/1ns", "hi"}},
		{"--rate", []string{"ask", "-c", "x", "--provider", "openai", "--rate", "-1/s", "hi"}},
		{"--rate", []string{"summarize", "--all", "--rate", "10/-1s"}},
		{"--ledger-size", []string{"summarize", "-c", "x", "--ledger-size", "-1"}},
		{"--summary-ratio", []string{"summarize", "-c", "x", "--summary-ratio", "NaN"}},
		{"--if-over", []string{"summarize", "-c", "x", "--if-over", "-1"}},
		{"--every", []string{"summarize", "-c", "x", "--every", "-1"}},
		{"--timeout", []string{"summarize", "-c", "x", "--timeout", "-1s"}},
		{"--jobs", []string{"summarize", "--all", "-j", "0"}},
		{"--since", []string{"list", "--since", "1e300d"}},
		{"--since", []string{"list", "--since", "Infd"}},
		{"--older-than", []string{"list", "--older-than", "-2w"}},
		{"--older-than", []string{"prune", "--older-than", "1e300d"}},
		{"--older-than", []string{"prune", "--older-than", "9999999999999999h"}},
		{"--limit", []string{"get", "-c", "x", "--limit", "-1"}},
		{"--before", []string{"get", "-c", "x", "--before", "-5"}},
		{"--max-tokens", []string{"render", "--provider", "openai", "--body", "--model", "m", "--max-tokens", "-1"}},
	} {
		io, out, errOut := iostreams.Test(`{"role":"user","content":"hi"}` + "\n")
		code := Run(context.Background(), append([]string{"--db", db}, tc.args...), io)
		if code != exitcode.Usage || out.Len() != 0 || !strings.Contains(errOut.String(), tc.flag) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 naming %s", tc.args, code, out, errOut, tc.flag)
		}
	}
}
