package importer

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestStrictOnEveryFixture: what --strict counts as lost on each fixture
// of each version named by issue 38 (Claude Code 2.0 and 2.1, Codex 0.10x
// and 0.12x, Gemini CLI JSON and JSONL, ChatGPT, Claude.ai): only what a
// provider would need; the noise real files hold (toolUseResult,
// snapshots, token counts, exec events copying a result) is known.
func TestStrictOnEveryFixture(t *testing.T) {
	want := map[string]string{ // fixture: the kinds lost ("" none)
		"chatgpt/conversations.json":                                                              "1 image_asset_pointer",
		"claude-ai/data-2026-03-04.zip":                                                           "",
		"claude-code/old/99999999-0000-4000-8000-000000000001.jsonl":                              "",
		"claude-code/proj/11111111-2222-3333-4444-555555555555.jsonl":                             "1 image",
		"claude-code/proj/11111111-2222-3333-4444-555555555555/subagents/agent-a0b1c2.jsonl":      "",
		"claude-code/proj21/22222222-2121-4000-8000-000000000021.jsonl":                           "",
		"claude-code/proj21/22222222-2121-4000-8000-000000000021/subagents/agent-b21.jsonl":       "",
		"codex/2025/11/20/rollout-2025-11-20T14-00-00-019a0104-0000-7000-8000-0000000c0104.jsonl": "",
		"codex/2025/rollout-2025-04-20T10-00-00-0196aaaa-0000-7000-8000-00000000e001.jsonl":       "",
		"codex/2026/03/02/rollout-2026-03-02T09-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl": "",
		"codex/2026/05/03/rollout-2026-05-03T08-00-00-019a0128-0000-7000-8000-0000000d0128.jsonl": "",
		"codex/2026/06/01/rollout-2026-06-01T08-00-00-019a0129-0000-7000-8000-0000000e0129.jsonl": "1 tool result answering no call",
		"codex/exec/rollout-exec-0199cccc-0000-7000-8000-00000000e0e0.jsonl":                      "",
		"gemini-cli/tmp/abc123/chats/9f8e7d6c-0000-4000-8000-000000000001/sub-1.jsonl":            "",
		"gemini-cli/tmp/abc123/chats/session-2025-09-01T10-00-legacy1.json":                       "",
		"gemini-cli/tmp/abc123/chats/session-2026-03-03T08-00-9f8e7d6c.jsonl":                     "",
		"gemini-cli/tmp/abc123/chats/session-2026-04-10T09-00-5e7c0a11.jsonl":                     "",
	}
	seen := 0
	for _, format := range Names() {
		f, _ := Lookup(format)
		files, err := Files(f, []string{filepath.Join("testdata", format)})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range files {
			rel, _ := filepath.Rel("testdata", p)
			w, ok := want[rel]
			if !ok {
				t.Errorf("%s: a fixture this test does not list", rel)
				continue
			}
			seen++
			im, warned, err := run(t, openStore(t), format, Options{}, p)
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			var lost []string
			for k, v := range im.Tally.Kinds {
				if !Known(k) {
					lost = append(lost, itoa(v)+" "+k)
				}
			}
			sort.Strings(lost)
			if got := strings.Join(lost, ", "); got != w || im.Tally.Cut+im.Tally.Rewritten > 0 {
				t.Errorf("%s: lost %q (cut %d, rewritten %d), want %q (warned %q)", rel, got, im.Tally.Cut, im.Tally.Rewritten, w, warned)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d fixtures found, %d listed", seen, len(want))
	}
}
