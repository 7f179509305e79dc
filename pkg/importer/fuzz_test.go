package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fuzzDecode runs format's decoder over data as a file named name, walking
// every session and branch: it may refuse the input, never panic.
func fuzzDecode(t *testing.T, format, name string, data []byte) {
	f, _ := Lookup(format)
	src := &Source{Path: name, R: bytes.NewReader(data), Size: int64(len(data)), Branches: true, notes: &Notes{}}
	_ = f.Decode(src, func(s *Session) error {
		walk := func(w func(int, func(*Entry) error) error) {
			n := 0
			_ = w(0, func(e *Entry) error { n++; return nil })
			_ = w(n/2, func(*Entry) error { return nil })
		}
		walk(s.Walk)
		for _, b := range s.Branches {
			walk(b.Walk)
		}
		return nil
	})
}

// seeds adds the fixtures of format as seeds.
func seeds(f *testing.F, format string) {
	_ = filepath.Walk(filepath.Join("testdata", format), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
		return nil
	})
}

func FuzzClaudeCode(f *testing.F) {
	seeds(f, "claude-code")
	f.Add([]byte(`{"type":"user","uuid":"a","parentUuid":"a","message":{"content":[{"type":"tool_result"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzDecode(t, "claude-code", "s.jsonl", b) })
}

func FuzzCodex(f *testing.F) {
	seeds(f, "codex")
	f.Add([]byte(`{"type":"response_item","payload":{"type":"reasoning"}}` + "\n" + `{"type":"function_call","call_id":"x","name":"y"}`))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzDecode(t, "codex", "rollout-x.jsonl", b) })
}

func FuzzGeminiCLI(f *testing.F) {
	seeds(f, "gemini-cli")
	f.Add([]byte(`{"$rewindTo":"x"}` + "\n" + `{"id":"x","type":"gemini","toolCalls":[{"result":{}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzDecode(t, "gemini-cli", "session-x.jsonl", b)
		fuzzDecode(t, "gemini-cli", "session-x.json", b)
	})
}

func FuzzChatGPT(f *testing.F) {
	seeds(f, "chatgpt")
	f.Add([]byte(`[{"id":"c","mapping":{"a":{"id":"a","parent":"a","children":[]}},"current_node":"a"}]`))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzDecode(t, "chatgpt", "conversations.json", b) })
}

func FuzzClaudeAI(f *testing.F) {
	seeds(f, "claude-ai")
	f.Add([]byte(`[{"uuid":"c","chat_messages":[{"uuid":"m","parent_message_uuid":"m"}],"current_leaf_message_uuid":"m"}]`))
	f.Fuzz(func(t *testing.T, b []byte) { fuzzDecode(t, "claude-ai", "conversations.json", b) })
}
