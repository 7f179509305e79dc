package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// codexExecLog is a Codex 0.12x rollout with the event copies a real one
// holds: exec_command_end before its function_call_output (a copy), one
// whose output item never came (the call's only result), one after its
// output (a copy), one of no call, and token_count after each answer.
const codexExecLog = `{"timestamp":"2026-06-01T08:00:00.000Z","type":"session_meta","payload":{"id":"019a0129-0000-7000-8000-0000000e0129","cwd":"/w","cli_version":"0.129.0"}}
{"timestamp":"2026-06-01T08:00:01.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5.3-codex"}}
{"timestamp":"2026-06-01T08:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":1.0}}}}
{"timestamp":"2026-06-01T08:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Run the tests"}]}}
{"timestamp":"2026-06-01T08:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test\"}","call_id":"call_1"}}
{"timestamp":"2026-06-01T08:00:02.500Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":500,"output_tokens":20},"last_token_usage":{"input_tokens":500,"output_tokens":20}}}}
{"timestamp":"2026-06-01T08:00:03.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_1","stdout":"ok","exit_code":0}}
{"timestamp":"2026-06-01T08:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"ok"}}
{"timestamp":"2026-06-01T08:00:04.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go vet\"}","call_id":"call_2"}}
{"timestamp":"2026-06-01T08:00:05.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_2","stdout":"","stderr":"vet: bad","aggregated_output":"vet: bad","exit_code":1}}
{"timestamp":"2026-06-01T08:00:06.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"call_3"}}
{"timestamp":"2026-06-01T08:00:07.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_3","output":"a.go"}}
{"timestamp":"2026-06-01T08:00:07.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_3","stdout":"a.go","exit_code":0}}
{"timestamp":"2026-06-01T08:00:08.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Tests pass; vet fails."}]}}
{"timestamp":"2026-06-01T08:00:08.500Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1700,"output_tokens":50},"last_token_usage":{"input_tokens":1200,"output_tokens":30}}}}
{"timestamp":"2026-06-01T08:00:09.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_user","stdout":"hi","exit_code":0}}
{"timestamp":"2026-06-01T08:00:10.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Thanks"}]}}
`

// TestCodexUsageAndExecEvents: each answer's token_count lands on its
// assistant record's aux (usage, usage_total); an exec_command_end whose
// function_call_output was imported is a known copy (not lost), one whose
// call got no output is that call's result, one of no call is lost; cut
// at every line and imported again, the same records.
func TestCodexUsageAndExecEvents(t *testing.T) {
	conv := "019a0129-0000-7000-8000-0000000e0129"
	dir := t.TempDir()
	p := filepath.Join(dir, "rollout-2026-06-01T08-00-00-"+conv+".jsonl")
	if err := os.WriteFile(p, []byte(codexExecLog), 0o644); err != nil {
		t.Fatal(err)
	}
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
	// call_1's and call_3's events are copies; the token_count of rate
	// limits alone is of no use; call_user's result answers no call: lost.
	if im.Tally.Lost != 1 || im.Tally.NotImported != 4 {
		t.Fatalf("tally %+v, warned %q", im.Tally, warned)
	}
	w := strings.Join(warned, "\n")
	if !strings.Contains(w, "not imported: 1 tool result answering no call; of no use to a provider or kept elsewhere: 2 event_msg/exec_command_end, 1 event_msg/token_count") {
		t.Fatalf("warned %q", w)
	}
	base := ids(t, s, conv)
	lines := strings.SplitAfter(codexExecLog, "\n")
	for cut := 1; cut < len(lines)-1; cut++ {
		q := filepath.Join(t.TempDir(), filepath.Base(p))
		if err := os.WriteFile(q, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		s := openStore(t)
		if _, _, err := run(t, s, "codex", Options{}, q); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(q, []byte(codexExecLog), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, s, "codex", Options{}, q); err != nil {
			t.Fatal(err)
		}
		if got := ids(t, s, conv); got != base {
			t.Fatalf("cut at %d: ids differ from the whole file's:\n%s", cut, diffLines(base, got))
		}
	}
}
