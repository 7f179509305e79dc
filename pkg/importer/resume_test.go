package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// resumeCases write sessions of n entries of about 250 bytes each, one a
// line, for the formats read from a cursor's offset.
var resumeCases = []struct {
	format, file string
	line         func(i int) string // entry i, from 1
}{
	{"codex", "rollout-res.jsonl", func(i int) string {
		if i == 1 {
			return `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"res","cwd":"/w"}}`
		}
		role, kind := "user", "input_text"
		if i%2 == 1 {
			role, kind = "assistant", "output_text"
		}
		return fmt.Sprintf(`{"timestamp":"2026-01-01T00:%02d:%02dZ","type":"response_item","payload":{"type":"message","role":%q,"content":[{"type":%q,"text":"entry %d %s"}]}}`,
			i/60, i%60, role, kind, i, strings.Repeat("x", 120))
	}},
	{"gemini-cli", "session-res.jsonl", func(i int) string {
		if i == 1 {
			return `{"sessionId":"res","projectHash":"p","startTime":"2026-01-01T00:00:00Z","kind":"main"}`
		}
		typ := "user"
		if i%2 == 1 {
			typ = "gemini"
		}
		return fmt.Sprintf(`{"id":"m%d","timestamp":"2026-01-01T00:%02d:%02dZ","type":%q,"content":[{"text":"entry %d %s"}]}`,
			i, i/60, i%60, typ, i, strings.Repeat("x", 150))
	}},
	{"claude-code", "res.jsonl", func(i int) string {
		typ := "user"
		if i%2 == 0 {
			typ = "assistant"
		}
		parent := "null"
		if i > 1 {
			parent = fmt.Sprintf(`"u%d"`, i-1)
		}
		return fmt.Sprintf(`{"type":%q,"uuid":"u%d","parentUuid":%s,"sessionId":"res","cwd":"/w","timestamp":"2026-01-01T00:%02d:%02dZ","message":{"role":%q,"content":[{"type":"text","text":"entry %d %s"}]}}`,
			typ, i, parent, i/60, i%60, typ, i, strings.Repeat("x", 100))
	}},
}

func session(from, to int, line func(int) string) []byte {
	var b bytes.Buffer
	for i := from; i <= to; i++ {
		b.WriteString(line(i) + "\n")
	}
	return b.Bytes()
}

// garble replaces line n (from 1) of b with as many x: no JSON.
func garble(b []byte, n int) []byte {
	out := bytes.Clone(b)
	start := 0
	for range n - 1 {
		start += bytes.IndexByte(out[start:], '\n') + 1
	}
	end := start + bytes.IndexByte(out[start:], '\n')
	for i := start; i < end; i++ {
		out[i] = 'x'
	}
	return out
}

// TestResumeReadsPastTheCursor: a grown file is read from the cursor's
// offset (a line before it made unreadable is not read), and stores what
// an import of the whole file stores.
func TestResumeReadsPastTheCursor(t *testing.T) {
	for _, c := range resumeCases {
		t.Run(c.format, func(t *testing.T) {
			first, grown := session(1, 60, c.line), session(1, 80, c.line)
			p, got, curs := importFirst(t, c.format, c.file, first)
			if len(curs) != 1 || !strings.Contains(curs[0].Resume, fmt.Sprintf(`"offset":%d`, len(first))) {
				t.Fatalf("cursors %+v, want one resuming at %d", curs, len(first))
			}
			resumeGrown(t, got, c.format, p, grown)
		})
	}
}

// importFirst writes first to a file named file and imports it into a
// new store: the file's path, the store and its cursors.
func importFirst(t *testing.T, format, file string, first []byte) (string, store.Store, []store.ImportCursor) {
	t.Helper()
	p := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(p, first, 0o644); err != nil {
		t.Fatal(err)
	}
	got := openStore(t)
	if _, _, err := run(t, got, format, Options{}, p); err != nil {
		t.Fatal(err)
	}
	var curs []store.ImportCursor
	_ = got.ImportCursors(t.Context(), "", func(c store.ImportCursor) error { curs = append(curs, c); return nil })
	return p, got, curs
}

// resumeGrown grows the file at p, imported into got, to grown and
// imports it again, with line 30 made unreadable (past the head's 4 KiB
// and before the tail's: a read from the file's start would name it): got
// must hold what an import of the whole grown file holds, no line named.
func resumeGrown(t *testing.T, got store.Store, format, p string, grown []byte) {
	t.Helper()
	want := openStore(t)
	if err := os.WriteFile(p, grown, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, want, format, Options{}, p); err != nil {
		t.Fatal(err)
	}
	// Line 30 lies past the head's 4 KiB and before the tail's.
	if err := os.WriteFile(p, garble(grown, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	im, warned, err := run(t, got, format, Options{}, p)
	if err != nil {
		t.Fatalf("resumed import read what was imported: %v", err)
	}
	if im.Tally.Inserted == 0 || len(warned) > 0 {
		t.Fatalf("resumed import: %+v, warned %q", im.Tally, warned)
	}
	dir := filepath.Dir(p)
	if g, w := dumpAll(t, got, dir), dumpAll(t, want, dir); g != w {
		t.Errorf("the resumed import differs from the whole file's:\n%s", golden.FirstDiff(w, g))
	}
}

// TestResumeTailChanged: a file whose bytes before the cursor's offset
// changed is read from its start (where the line made unreadable is named
// and skipped).
func TestResumeTailChanged(t *testing.T) {
	for _, c := range resumeCases {
		t.Run(c.format, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), c.file)
			first := session(1, 60, c.line)
			if err := os.WriteFile(p, first, 0o644); err != nil {
				t.Fatal(err)
			}
			s := openStore(t)
			if _, _, err := run(t, s, c.format, Options{}, p); err != nil {
				t.Fatal(err)
			}
			grown := garble(session(1, 80, c.line), 30)
			i := bytes.LastIndex(grown[:len(first)-1], []byte("entry 60"))
			grown[i+len("entry 6")] = '1' // "entry 61": still JSON
			if err := os.WriteFile(p, grown, 0o644); err != nil {
				t.Fatal(err)
			}
			_, warned, err := run(t, s, c.format, Options{}, p)
			if err != nil || !strings.Contains(strings.Join(warned, "\n"), "line 30: skipped") {
				t.Fatalf("err = %v, warned %q: want line 30 named and skipped (the file read from its start)", err, warned)
			}
		})
	}
}

// TestResumeBranchOffTheImported: Claude Code entries written since that
// leave the branch before its last entry (a rewind) are read from the
// file's start: the new branch goes to a conversation of its own.
func TestResumeBranchOffTheImported(t *testing.T) {
	c := resumeCases[2]
	p := filepath.Join(t.TempDir(), c.file)
	first := session(1, 60, c.line)
	if err := os.WriteFile(p, first, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, _, err := run(t, s, c.format, Options{}, p); err != nil {
		t.Fatal(err)
	}
	branch := strings.Replace(c.line(61), `"parentUuid":"u60"`, `"parentUuid":"u50"`, 1)
	if err := os.WriteFile(p, append(first, branch+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, warned, err := run(t, s, c.format, Options{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(warned, "\n"); !strings.Contains(w, "moved behind what was imported") || !strings.Contains(w, "res~u61") {
		t.Fatalf("warned %q, want the branch moved to res~u61", w)
	}
}

// TestCompactionAfterLongImport: a compaction in a grown file covers every
// record since the conversation's start, though the import that reads it
// loads only the newest of them first.
func TestCompactionAfterLongImport(t *testing.T) {
	c := resumeCases[0] // codex
	p := filepath.Join(t.TempDir(), c.file)
	first := session(1, loadTail+100, c.line)
	grown := append(bytes.Clone(first), `{"timestamp":"2026-01-01T09:00:00Z","type":"compacted","payload":{"message":"all of it, shortly"}}`+"\n"...)
	grown = append(grown, session(loadTail+101, loadTail+102, c.line)...)
	if err := os.WriteFile(p, first, 0o644); err != nil {
		t.Fatal(err)
	}
	got := openStore(t)
	if _, _, err := run(t, got, c.format, Options{}, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, grown, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, got, c.format, Options{}, p); err != nil {
		t.Fatal(err)
	}
	want := openStore(t)
	if _, _, err := run(t, want, c.format, Options{}, p); err != nil {
		t.Fatal(err)
	}
	g, w := dumpAll(t, got, filepath.Dir(p)), dumpAll(t, want, filepath.Dir(p))
	if g != w {
		t.Errorf("the grown file's import differs from the whole file's:\n%s", golden.FirstDiff(w, g))
	}
	if n := strings.Count(w[strings.Index(w, `"summaryIds"`):], `","`); n < loadTail+98 {
		t.Errorf("the summary covers %d records, want all %d", n+1, loadTail+99)
	}
}

// TestResumeOldFormCursor: a cursor stored before formats kept their state
// apart (its fields beside offset, line and tail) still resumes, with the
// state it holds: a grown file read from it stores what an import of the
// whole file stores. Codex's model changes before the cursor, so that a
// state lost would show in the records.
func TestResumeOldFormCursor(t *testing.T) {
	cases := slices.Clone(resumeCases)
	codexLine := cases[0].line
	cases[0].line = func(i int) string {
		switch i {
		case 2, 40:
			model := map[int]string{2: "gpt-a", 40: "gpt-b"}[i]
			return fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:%02dZ","type":"turn_context","payload":{"model":%q}}`, i, model)
		}
		return codexLine(i)
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			p, got, curs := importFirst(t, c.format, c.file, session(1, 60, c.line))
			grown := session(1, 80, c.line)
			if len(curs) != 1 {
				t.Fatalf("cursors %+v, want one", curs)
			}
			// The old form: the state's fields beside offset, line and tail.
			var fields, state map[string]json.RawMessage
			if err := json.Unmarshal([]byte(curs[0].Resume), &fields); err != nil {
				t.Fatal(err)
			}
			if c.format != "gemini-cli" && json.Unmarshal(fields["state"], &state) != nil {
				t.Fatalf("resume %s holds no state", curs[0].Resume)
			}
			delete(fields, "state")
			maps.Copy(fields, state)
			old, _ := json.Marshal(fields)
			cur := curs[0]
			cur.Resume = string(old) // as the code before state was kept apart stored it
			if _, err := got.ImportAppend(t.Context(), cur, transcript.NewIDs(), transcript.Slice()); err != nil {
				t.Fatal(err)
			}
			resumeGrown(t, got, c.format, p, grown)
		})
	}
}
