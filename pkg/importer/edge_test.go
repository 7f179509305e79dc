package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownVersion: lines of a later version (types, blocks, items this
// decoder does not know) are counted and named, the rest imported.
func TestUnknownVersion(t *testing.T) {
	for _, tc := range []struct{ format, name, body, want string }{
		{"codex", "rollout-x.jsonl", `{"timestamp":"2027-01-01T00:00:00Z","type":"session_meta","payload":{"session_id":"s-new","cli_version":"9.0.0"}}
{"timestamp":"2027-01-01T00:00:01Z","type":"world_state","payload":{"x":1}}
{"timestamp":"2027-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_video","url":"v"}]}}
{"timestamp":"2027-01-01T00:00:03Z","type":"response_item","payload":{"type":"hologram_call","call_id":"c"}}
`, "1 hologram_call, 1 input_video, 1 line type world_state"},
		{"claude-code", "s.jsonl", `{"type":"user","uuid":"u","parentUuid":null,"sessionId":"s-new","version":"9.0.0","timestamp":"2027-01-01T00:00:00Z","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"video","url":"v"}]}}
{"type":"telepathy","uuid":"t","parentUuid":"u","sessionId":"s-new","timestamp":"2027-01-01T00:00:01Z"}
`, "1 telepathy, 1 video"},
	} {
		p := filepath.Join(t.TempDir(), tc.name)
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		s := openStore(t)
		im, warned, err := run(t, s, tc.format, Options{}, p)
		if err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		if im.Tally.Inserted != 1 {
			t.Errorf("%s: inserted %d, want the one user message", tc.format, im.Tally.Inserted)
		}
		if got := strings.Join(warned, "\n"); !strings.Contains(got, "not imported: "+tc.want) {
			t.Errorf("%s: warned %q, want %q", tc.format, got, tc.want)
		}
	}
}

// TestEntryOverLimitCut: a tool result over the record size limit is cut to
// fit, counted, and still pairs with its call.
func TestEntryOverLimitCut(t *testing.T) {
	big := strings.Repeat("x\\n", 3<<20) // 6 MiB escaped
	body := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"big"}}
{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"dump it"}]}}
{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}
{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"` + big + `"}}
`
	p := filepath.Join(t.TempDir(), "rollout-big.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	im, warned, err := run(t, s, "codex", Options{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if im.Tally.Cut != 1 || !strings.Contains(strings.Join(warned, "\n"), "1 entry over the record size limit (cut)") {
		t.Fatalf("tally %+v, warned %q", im.Tally, warned)
	}
	got := records(t, s, "big")
	if !strings.Contains(got, `[cut by convo import]"],"tool_call_id":"c1"`) {
		t.Fatalf("the cut result is not stored with its call id: %.300s", got[len(got)-300:])
	}
}

// TestChangedOncePerConversation: a session stored in many chunks is one
// line of output, with every record it added.
func TestChangedOncePerConversation(t *testing.T) {
	s := openStore(t)
	calls := map[string][]int{}
	opt := Options{Chunk: 2, Changed: func(conv string, n int) { calls[conv] = append(calls[conv], n) }}
	p := filepath.Join("testdata", "codex", "2026", "03")
	im, _, err := run(t, s, "codex", opt, p)
	if err != nil {
		t.Fatal(err)
	}
	got := calls["0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"]
	if len(calls) != 1 || len(got) != 1 || got[0] != im.Tally.Inserted || got[0] < 4 {
		t.Fatalf("Changed calls %v, want one with %d (more than 2 chunks)", calls, im.Tally.Inserted)
	}
}

// TestFirstRecordAfterEmptyImport: a session whose first import stored
// nothing (no entry made a record yet) still gets aux.import's facts on
// the first record a later import stores.
func TestFirstRecordAfterEmptyImport(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	head := `{"type":"progress","uuid":"p1","parentUuid":null,"sessionId":"late","cwd":"/w","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	if err := os.WriteFile(p, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, _, err := run(t, s, "claude-code", Options{}, p); err != nil {
		t.Fatal(err)
	}
	more := head + `{"type":"user","uuid":"u1","parentUuid":"p1","sessionId":"late","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"hi"}}` + "\n"
	if err := os.WriteFile(p, []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, s, "claude-code", Options{}, p); err != nil {
		t.Fatal(err)
	}
	if got := records(t, s, "late"); !strings.Contains(got, `"session":"late"`) || !strings.Contains(got, `"cwd":"/w"`) {
		t.Fatalf("first record:\n%s", got)
	}
}

// TestCodexCompactionItem: Codex's encrypted compaction item is a provider
// compaction: a summary of what came before it, the item byte for byte as
// openai-responses provider data, the marker as its text; the records it
// covers stay.
func TestCodexCompactionItem(t *testing.T) {
	body := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"cmp"}}
{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the cache"}]}}
{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}
{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA-opaque=="}}
{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"and the docs"}]}}
`
	p := filepath.Join(t.TempDir(), "rollout-cmp.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, warned, err := run(t, s, "codex", Options{}, p); err != nil || strings.Contains(strings.Join(warned, "\n"), "compaction") {
		t.Fatalf("%v; warned %q", err, warned)
	}
	got := records(t, s, "cmp")
	for _, want := range []string{
		`"role":"summary","contents":["[provider compaction: no readable summary]"],"provider_data":[{"provider":"openai-responses","at":0,"item":{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA-opaque=="}}]`,
		`"contents":["fix the cache"]`, `"contents":["done"]`, `"contents":["and the docs"]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stored records lack %s:\n%s", want, got)
		}
	}
	if n := strings.Count(got, `"summaryIds":[`); n != 1 {
		t.Errorf("want one summary with summaryIds, got %d:\n%s", n, got)
	}
}
