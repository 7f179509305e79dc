package importer

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLostOrKnown: what an import leaves out is split into what is known
// and carried elsewhere or of no use to a provider (progress, snapshots,
// token counts, a tool's structured output beside its result text) and
// what is lost (anything a provider would need, unknown kinds, entries
// dropped, cycles, bytes replaced): only the second is Lost (--strict).
func TestLostOrKnown(t *testing.T) {
	write := func(name, text string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const u1 = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n"
	for _, c := range []struct {
		name, format, path string
		lost               bool
	}{
		{"claude code 2.1 noise", "claude-code", "testdata/claude-code/proj21", false},
		{"codex 0.128 noise", "codex", codexDesktop, false},
		{"claude code 2.0 image", "claude-code", "testdata/claude-code/proj", true},
		{"cycle in parentUuid", "claude-code", write("cyc.jsonl", u1+
			`{"type":"assistant","uuid":"a1","parentUuid":"a2","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"x"}]}}`+"\n"+
			`{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"y"}]}}`+"\n"), true},
		{"an entry without a uuid", "claude-code", write("nouuid.jsonl", u1+
			`{"type":"assistant","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"lost"}]}}`+"\n"), true},
		{"invalid UTF-8", "claude-code", write("utf8.jsonl", u1+
			"{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"sessionId\":\"s\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"caf\xe9\"}]}}\n"), true},
		{"invalid UTF-8, gemini cli", "gemini-cli", write("session-2026-01-01T00-00-s.jsonl",
			`{"sessionId":"s","projectHash":"p","startTime":"2026-01-01T00:00:00Z"}`+"\n"+
				"{\"id\":\"m1\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"type\":\"user\",\"content\":[{\"text\":\"caf\xe9\"}]}\n"), true},
		{"invalid UTF-8, gemini cli legacy", "gemini-cli", write("session-2026-01-01T00-00-s.json",
			"{\"sessionId\":\"s\",\"projectHash\":\"p\",\"messages\":[{\"id\":\"m1\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"type\":\"user\",\"content\":\"caf\xe9\"}]}\n"), true},
		{"invalid UTF-8, chatgpt", "chatgpt", write("conversations.json",
			`[{"id":"c","title":"t","create_time":1767225600.0,"current_node":"m1","mapping":{"root":{"id":"root","message":null,"parent":null,"children":["m1"]},`+
				"\"m1\":{\"id\":\"m1\",\"parent\":\"root\",\"children\":[],\"message\":{\"id\":\"m1\",\"author\":{\"role\":\"user\"},\"create_time\":1767225601.0,\"content\":{\"content_type\":\"text\",\"parts\":[\"caf\xe9\"]},\"recipient\":\"all\"}}}}]\n"), true},
		{"the wrong --from", "claude-code", codexDesktop, true},
	} {
		im, warned, err := run(t, openStore(t), c.format, Options{}, c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := im.Tally.Lost > 0; got != c.lost {
			t.Errorf("%s: lost %d of %d not imported, want lost %v (warned %q)", c.name, im.Tally.Lost, im.Tally.NotImported, c.lost, warned)
		}
	}
}

// TestImportDocRenders: docs/import.md's tables are whole (a row after a
// paragraph line does not render as one) and it names the fields it maps
// (Claude Code's ai-title entry by its aiTitle).
func TestImportDocRenders(t *testing.T) {
	b, err := os.ReadFile("../../docs/import.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if i > 0 && strings.HasPrefix(l, "|") && lines[i-1] != "" && !strings.HasPrefix(lines[i-1], "|") {
			t.Errorf("docs/import.md:%d: a table row after a paragraph line (it renders as text): %.60s", i+1, l)
		}
	}
	if !strings.Contains(string(b), "`aiTitle`") {
		t.Error("docs/import.md does not name ai-title's field aiTitle")
	}
}

// TestSourceRelativeToHome: aux.import.source names a file under the
// home directory relative to it, so that exports do not carry the home.
func TestSourceRelativeToHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	p := filepath.Join(home, ".codex", "sessions", "rollout-2026-05-03T08-00-00-019a0128-0000-7000-8000-0000000d0128.jsonl")
	b, err := os.ReadFile(codexDesktop)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, _, err := run(t, s, "codex", Options{}, p); err != nil {
		t.Fatal(err)
	}
	got := records(t, s, "019a0128-0000-7000-8000-0000000d0128")
	if !strings.Contains(got, `"source":"~/.codex/sessions/rollout-`) || strings.Contains(got, home) {
		t.Fatalf("aux.import.source: %.400s", got)
	}
}

// TestStdinCopyUnlinked: the copy of stdin an import reads is unlinked
// while it is read, so a process killed then leaves nothing behind.
func TestStdinCopyUnlinked(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	b, err := os.ReadFile(codexDesktop)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Lookup("codex")
	im, err := New(t.Context(), openStore(t), Options{Format: f})
	if err != nil {
		t.Fatal(err)
	}
	left := -1
	r := readFunc(func(p []byte) (int, error) {
		if left < 0 {
			es, _ := os.ReadDir(tmp)
			left = len(es)
		}
		if len(b) == 0 {
			return 0, io.EOF
		}
		n := copy(p, b)
		b = b[n:]
		return n, nil
	})
	if err := im.ImportStream(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d files in TMPDIR while stdin was copied, want none (the copy unlinked)", left)
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }
