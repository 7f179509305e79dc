package importer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A file that is not the format's is named and skipped; the others are
// imported.
func TestImportFilesSkipsBadFiles(t *testing.T) {
	f, _ := Lookup("chatgpt")
	bad := filepath.Join(t.TempDir(), "conversations.json")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warned []string
	im, err := New(context.Background(), openStore(t), Options{Format: f, Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	n, err := im.ImportFiles(context.Background(), []string{bad, filepath.Join("testdata", "chatgpt", "conversations.json")})
	if err != nil || n != 1 || len(warned) == 0 || warned[0] != bad+": line 1: not a JSON array of conversations" {
		t.Fatalf("bad %d, warned %q, %v; want the bad file named first, no error", n, warned, err)
	}
	if im.Tally.Files != 2 || im.Tally.Inserted == 0 {
		t.Fatalf("tally %+v: want both files read and the good one's records stored", im.Tally)
	}
}

// A symbolic link to a directory is walked as the directory it names
// (filepath.WalkDir alone takes it as the link, finding no file), and the
// files keep the link's path.
func TestFilesFollowsLinkToDirectory(t *testing.T) {
	f, _ := Lookup("claude-code")
	target, err := filepath.Abs(filepath.Join("testdata", "claude-code", "proj"))
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	got, err := Files(f, []string{link})
	if err != nil || len(got) == 0 {
		t.Fatalf("Files(link) = %q, %v; want the directory's sessions", got, err)
	}
	for _, p := range got {
		if filepath.Dir(p) != link && filepath.Dir(filepath.Dir(filepath.Dir(p))) != link {
			t.Errorf("%s: want a path under the link %s", p, link)
		}
	}
}

// In a walked directory, a link to a session file is that file, and a link
// to a directory is not followed (a loop would never end).
func TestFilesFollowsLinkToFile(t *testing.T) {
	f, _ := Lookup("claude-code")
	session, err := filepath.Abs(filepath.Join("testdata", "claude-code", "proj", "11111111-2222-3333-4444-555555555555.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "linked.jsonl")
	if err := os.Symlink(session, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone.jsonl"), filepath.Join(dir, "dangling.jsonl")); err != nil {
		t.Fatal(err)
	}
	got, err := Files(f, []string{dir})
	if err != nil || !slices.Equal(got, []string{link}) {
		t.Fatalf("Files(dir) = %q, %v; want [%s]", got, err, link)
	}
}

// A Gemini CLI session of one JSON object (the legacy .json) that is not
// the format's is named with the line, as a file of lines is: where the
// broken message starts.
func TestGeminiLegacyErrorNamesLine(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"{\n \"sessionId\": \"s\",\n \"messages\": [\n  {\"id\": \"m1\", \"type\": \"user\", \"content\": \"hi\"},\n  {\"id\": \"m2\",\n", "line 5: messages[1]: "},
		{"{\n \"sessionId\": \"s\",\n \"messages\": [\n  {\"id\": \"m1\", \"type\": \"user\", \"content\": \"a\x00b\"}\n ]\n}\n", "line 4: messages[0]: "},
	} {
		p := filepath.Join(dir, "session-2026-01-01T00-00-s.json")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, openStore(t), "gemini-cli", Options{}, p)
		if err == nil || !strings.Contains(err.Error(), p+": "+c.want) {
			t.Errorf("%q: err %v, want %q", c.text, err, c.want)
		}
	}
}
