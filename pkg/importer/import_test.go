package importer

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/store"
)

// TestGolden imports each format's fixtures and compares every record
// stored with the golden file; a second import adds nothing and reads no
// file (all unchanged).
func TestGolden(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			if _, err := os.Stat(dir); err != nil {
				t.Skip("no fixtures")
			}
			s := openStore(t)
			im, warned, err := run(t, s, name, Options{Branches: true}, dir)
			if err != nil {
				t.Fatal(err)
			}
			if im.Tally.Inserted == 0 {
				t.Fatal("nothing imported")
			}
			abs, _ := filepath.Abs(dir)
			notes := strings.ReplaceAll(strings.Join(warned, "\n"), abs, "DIR")
			checkGolden(t, name+".jsonl", dumpAll(t, s, dir)+"## stderr\n"+notes+"\n")
			again, _, err := run(t, s, name, Options{Branches: true}, dir)
			if err != nil {
				t.Fatal(err)
			}
			if again.Tally.Inserted+again.Tally.Merged != 0 || again.Tally.Unchanged != again.Tally.Files {
				t.Fatalf("second import: %+v, want nothing new and every file unchanged", again.Tally)
			}
		})
	}
}

// growingCases are session files cut at a line, imported, grown back to
// whole and imported again: the result is the whole file's import.
var growingCases = map[string]string{
	"claude-code": "testdata/claude-code/proj/11111111-2222-3333-4444-555555555555.jsonl",
	"codex":       "testdata/codex/2026/03/02/rollout-2026-03-02T09-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
	"gemini-cli":  "testdata/gemini-cli/tmp/abc123/chats/session-2026-04-10T09-00-5e7c0a11.jsonl",
}

func TestGrowingFileImportedTwice(t *testing.T) {
	for format, path := range growingCases {
		t.Run(format, func(t *testing.T) {
			whole, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := openStore(t)
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.Base(path))
			if err := os.WriteFile(p, whole, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := run(t, want, format, Options{}, p); err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(whole), "\n")
			// (Not inside the Claude Code fixture's rewind, lines 11-12: cut
			// there, the branch moves, as TestMovedBranch shows.)
			for _, cutAt := range []int{3, 4, 7, len(lines) - 2} {
				got := openStore(t)
				// The first part, and half of the next line (a tool still writing it).
				part := strings.Join(lines[:cutAt], "") + lines[cutAt][:len(lines[cutAt])/2]
				if err := os.WriteFile(p, []byte(part), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, _, err := run(t, got, format, Options{}, p); err != nil {
					t.Fatalf("cut at %d: %v", cutAt, err)
				}
				if err := os.WriteFile(p, whole, 0o644); err != nil {
					t.Fatal(err)
				}
				im, _, err := run(t, got, format, Options{}, p)
				if err != nil {
					t.Fatalf("cut at %d, whole: %v", cutAt, err)
				}
				if im.Tally.Unchanged != 0 {
					t.Fatalf("cut at %d: the grown file was skipped", cutAt)
				}
				// A title the session gets later goes to its first record.
				if g, w := dumpAll(t, got, dir), dumpAll(t, want, dir); g != w {
					t.Errorf("cut at %d: the grown file's import differs from the whole file's:\n%s", cutAt, golden.FirstDiff(w, g))
				}
			}
		})
	}
}

// TestRewrittenFileNotDuplicated: a file rewritten in place (another
// head) is reported and not read again.
func TestRewrittenFileNotDuplicated(t *testing.T) {
	path := growingCases["codex"]
	whole, _ := os.ReadFile(path)
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(p, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, _, err := run(t, s, "codex", Options{}, p); err != nil {
		t.Fatal(err)
	}
	before := dumpAll(t, s, dir)
	other := strings.Replace(string(whole), "Always run gofmt.", "Always run gofumpt.", 1)
	if err := os.WriteFile(p, []byte(other+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	im, warned, err := run(t, s, "codex", Options{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if im.Tally.Rewritten != 1 || len(warned) == 0 || !strings.Contains(warned[0], "rewritten in place") {
		t.Fatalf("tally %+v, warned %q: want the rewrite reported", im.Tally, warned)
	}
	if after := dumpAll(t, s, dir); after != before {
		t.Fatal("a rewritten file changed the store")
	}
}

// TestMovedBranchGoesToItsOwnConversation: a Claude Code session rewound
// after it was imported (a new leaf off an earlier entry) leaves the
// conversation as it was and imports the new branch beside it.
func TestMovedBranchGoesToItsOwnConversation(t *testing.T) {
	path := growingCases["claude-code"]
	whole, _ := os.ReadFile(path)
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(p, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, _, err := run(t, s, "claude-code", Options{}, p); err != nil {
		t.Fatal(err)
	}
	conv := "11111111-2222-3333-4444-555555555555"
	before := records(t, s, conv)
	grown := string(whole) + `{"type":"user","uuid":"n1","parentUuid":"a5","sessionId":"` + conv + `","timestamp":"2026-03-01T11:00:00.000Z","message":{"role":"user","content":"Try another way."}}` + "\n"
	if err := os.WriteFile(p, []byte(grown), 0o644); err != nil {
		t.Fatal(err)
	}
	im, warned, err := run(t, s, "claude-code", Options{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if im.Tally.Forks != 1 || len(warned) == 0 || !strings.Contains(strings.Join(warned, "\n"), "moved behind what was imported") {
		t.Fatalf("tally %+v, warned %q: want the move said and one fork", im.Tally, warned)
	}
	if after := records(t, s, conv); after != before {
		t.Fatal("the conversation changed")
	}
	fork := records(t, s, conv+"~n1")
	if !strings.Contains(fork, "Try another way.") || !strings.Contains(fork, `"forkOf":"`+conv+`"`) {
		t.Fatalf("fork holds:\n%s", fork)
	}
	// Again: nothing new, nothing duplicated.
	im, _, err = run(t, s, "claude-code", Options{}, p)
	if err != nil || im.Tally.Inserted != 0 {
		t.Fatalf("third import: %+v, %v", im.Tally, err)
	}
}

func records(t testing.TB, s store.Store, conv string) string {
	t.Helper()
	var b strings.Builder
	err := s.Read(context.Background(), conv, store.ReadOptions{}, func(r store.Row) error {
		b.Write(r.Body)
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestBadLineNamed: a line that is no JSON (not the last) is named and
// skipped, counted among what was not imported (--strict's exit 3), and
// the rest of the file imported.
func TestBadLineNamed(t *testing.T) {
	for format := range growingCases {
		p := filepath.Join(t.TempDir(), "rollout-x.jsonl")
		if err := os.WriteFile(p, []byte("{\"type\":\"user\"\nnot json\n{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		im, warned, err := run(t, openStore(t), format, Options{}, p)
		if err != nil || !strings.Contains(strings.Join(warned, "\n"), "line 1: skipped") || im.Tally.NotImported == 0 {
			t.Errorf("%s: err = %v, warned %q, tally %+v: want line 1 named, skipped and counted", format, err, warned, im.Tally)
		}
	}
}

// noTitle drops aux.import's title, which a session names at its end.
func noTitle(s string) string {
	return regexp.MustCompile(`,"title":"[^"]*"`).ReplaceAllString(s, "")
}

// TestLaterExportMatchedByConversation: a later export, saved under another
// name, adds only what is new, and a regenerated answer (current_node
// moved) goes to a conversation of its own instead of being merged in.
func TestLaterExportMatchedByConversation(t *testing.T) {
	whole, err := os.ReadFile("testdata/chatgpt/conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "2026-03", "conversations.json")
	later := filepath.Join(dir, "2026-04", "conversations.json")
	for _, p := range []string{first, later} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(first, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, _, err := run(t, s, "chatgpt", Options{}, first); err != nil {
		t.Fatal(err)
	}
	conv := "6650a1b2-0000-4000-8000-00000000c0de"
	before := records(t, s, conv)
	// The same export again under another name: nothing new.
	if err := os.WriteFile(later, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	im, _, err := run(t, s, "chatgpt", Options{}, later)
	if err != nil || im.Tally.Inserted != 0 {
		t.Fatalf("the same export again: %+v, %v", im.Tally, err)
	}
	// The user went back to the other answer: current_node moved.
	moved := strings.Replace(string(whole), `"current_node": "a3b"`, `"current_node": "a3"`, 1)
	if moved == string(whole) {
		t.Fatal("fixture changed: no current_node a3b")
	}
	if err := os.WriteFile(later, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	im, warned, err := run(t, s, "chatgpt", Options{}, later)
	if err != nil {
		t.Fatal(err)
	}
	if im.Tally.Forks != 1 || !strings.Contains(strings.Join(warned, "\n"), "moved behind what was imported") {
		t.Fatalf("tally %+v, warned %q", im.Tally, warned)
	}
	if after := records(t, s, conv); after != before {
		t.Fatalf("the conversation changed:\n%s", golden.FirstDiff(before, after))
	}
	if fork := records(t, s, conv+"~u2"); !strings.Contains(fork, `"1024"`) {
		t.Fatalf("fork holds:\n%s", fork)
	}
}
