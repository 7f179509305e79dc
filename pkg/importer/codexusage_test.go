package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/transcript"
)

// codexExecFile is a Codex 0.12x rollout with the event copies a real one
// holds: exec_command_end before its function_call_output (a copy), one
// whose output item never came (the call's only result), one after its
// output (a copy), one of no call, and token_count after each answer.
const codexExecFile = "testdata/codex/2026/06/01/rollout-2026-06-01T08-00-00-019a0129-0000-7000-8000-0000000e0129.jsonl"

// codexExecLog is codexExecFile's text.
func codexExecLog(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(codexExecFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCodexUsageAndExecEvents: each answer's token_count lands on its
// assistant record's aux (usage, usage_total); an exec_command_end whose
// function_call_output was imported is a known copy (not lost), one whose
// call got no output is that call's result, one of no call is lost; cut
// at every line and imported again, the same records.
func TestCodexUsageAndExecEvents(t *testing.T) {
	conv := "019a0129-0000-7000-8000-0000000e0129"
	log := codexExecLog(t)
	p := codexExecFile
	s := openStore(t)
	im, warned, err := run(t, s, "codex", Options{}, p)
	if err != nil {
		t.Fatal(err)
	}
	recs := storedRecords(t, s, conv)
	var results []string
	var usages []string
	for _, r := range recs {
		switch r.Message.Role {
		case transcript.RoleTool:
			results = append(results, r.Message.ToolCallID+"="+strings.Join(r.Message.Contents, "")+map[bool]string{true: " (error)"}[r.Message.IsError])
		case transcript.RoleAssistant:
			usages = append(usages, string(r.Metadata.Aux["usage"])+" "+string(r.Metadata.Aux["usage_total"]))
		}
	}
	if got, want := strings.Join(results, ", "), "call_1=ok, call_2=vet: bad (error), call_3=a.go"; got != want {
		t.Fatalf("results %q, want %q", got, want)
	}
	// (call_2's and call_3's answers got no token_count)
	if got, want := strings.Join(usages, " | "), `{"input_tokens":500,"output_tokens":20} {"input_tokens":500,"output_tokens":20} |   |   | {"input_tokens":1200,"output_tokens":30} {"input_tokens":1700,"output_tokens":50}`; got != want {
		t.Fatalf("usage %q, want %q", got, want)
	}
	// call_1's and call_3's events are copies, and call_u2's (a user
	// shell command, in the history as a user message); the token_count
	// of rate limits alone is of no use; call_user's result answers no
	// call: lost.
	if im.Tally.Lost != 1 || im.Tally.NotImported != 5 {
		t.Fatalf("tally %+v, warned %q", im.Tally, warned)
	}
	w := strings.Join(warned, "\n")
	if !strings.Contains(w, "not imported: 1 tool result answering no call; of no use to a provider or kept elsewhere: 2 event_msg/exec_command_end, 1 event_msg/exec_command_end (user shell), 1 event_msg/token_count") {
		t.Fatalf("warned %q", w)
	}
	base := ids(t, s, conv)
	lines := strings.SplitAfter(log, "\n")
	for cut := 1; cut < len(lines)-1; cut++ {
		q := filepath.Join(t.TempDir(), filepath.Base(p))
		if err := os.WriteFile(q, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		s := openStore(t)
		if _, _, err := run(t, s, "codex", Options{}, q); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(q, []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, s, "codex", Options{}, q); err != nil {
			t.Fatal(err)
		}
		if got := ids(t, s, conv); got != base {
			t.Fatalf("cut at %d: ids differ from the whole file's:\n%s", cut, golden.FirstDiff(base, got))
		}
	}
}
