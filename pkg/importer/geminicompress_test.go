package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiCompression: a compression's checkpoint ($set of the messages,
// the <state_snapshot> first) is a summary covering every record before it,
// the originals kept; its acknowledgement and the copies of the turns it
// kept are not imported again, nor is a later checkpoint restating them.
func TestGeminiCompression(t *testing.T) {
	const fixture = "testdata/gemini-cli/tmp/abc123/chats/session-2026-04-10T09-00-5e7c0a11.jsonl"
	s := openStore(t)
	_, warned, err := run(t, s, "gemini-cli", Options{}, fixture)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(warned, "\n"); strings.Contains(w, "$set") {
		t.Errorf("a checkpoint noted as not applied: %s", w)
	}
	got := records(t, s, "5e7c0a11-0000-4000-8000-000000000002")
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 9 {
		t.Fatalf("want 9 records (6, the summary, 2), got %d:\n%s", len(lines), got)
	}
	sum := lines[6]
	if !strings.Contains(sum, `"role":"summary","contents":["<state_snapshot>`) || strings.Count(sum, `","`)+1 < 6 {
		t.Errorf("record 7 is not the summary of the 6 before it: %s", sum)
	}
	for _, l := range lines[:6] {
		id := l[strings.Index(l, `"id":"`)+6:][:26]
		if !strings.Contains(sum, `"`+id+`"`) {
			t.Errorf("the summary does not cover %s", id)
		}
	}
	if strings.Contains(got, "Got it.") || strings.Count(got, `"Add a LIMIT."`) != 1 {
		t.Errorf("the acknowledgement or a kept turn's copy imported:\n%s", got)
	}
}

// TestGeminiSetOfUnknownMessages: a $set of messages the file does not
// hold and no summary is still noted, not applied.
func TestGeminiSetOfUnknownMessages(t *testing.T) {
	body := `{"sessionId":"u1","projectHash":"p"}
{"id":"m1","timestamp":"2026-04-10T09:00:01.000Z","type":"user","content":"hi"}
{"$set":{"messages":[{"id":"x9","timestamp":"2026-04-10T09:00:02.000Z","type":"user","content":[{"text":"hello"}]}]}}
`
	p := filepath.Join(t.TempDir(), "session-u1.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	_, warned, err := run(t, s, "gemini-cli", Options{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(warned, "\n"); !strings.Contains(w, "$set of the messages (not applied)") {
		t.Errorf("warned %q, want the $set noted", w)
	}
	if got := records(t, s, "u1"); strings.Contains(got, "summary") || strings.Count(got, "\n") != 1 {
		t.Errorf("want the one user record:\n%s", got)
	}
}
