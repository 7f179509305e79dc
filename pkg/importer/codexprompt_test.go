package importer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

const (
	codexDesktop = "testdata/codex/2026/05/03/rollout-2026-05-03T08-00-00-019a0128-0000-7000-8000-0000000d0128.jsonl"
	codex0104    = "testdata/codex/2025/11/20/rollout-2025-11-20T14-00-00-019a0104-0000-7000-8000-0000000c0104.jsonl"
)

// storedRecords is conv's records, decoded.
func storedRecords(t testing.TB, s store.Store, conv string) []transcript.Record {
	t.Helper()
	var out []transcript.Record
	err := s.Read(context.Background(), conv, store.ReadOptions{}, func(row store.Row) error {
		var r transcript.Record
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// userTexts is the texts of conv's user records, a placeholder as "FAKE".
func userTexts(recs []transcript.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Message.Role != transcript.RoleUser {
			continue
		}
		if r.IsFake() {
			out = append(out, "FAKE")
			continue
		}
		out = append(out, strings.Join(r.Message.Contents, "|"))
	}
	return out
}

// TestCodexEventPrompts: a prompt found only as event_msg/user_message
// (Codex Desktop 0.128) is the user's record; one written both ways, in
// either order, is stored once; imported whole or cut at each line then
// whole, the same.
func TestCodexEventPrompts(t *testing.T) {
	whole, err := os.ReadFile(codexDesktop)
	if err != nil {
		t.Fatal(err)
	}
	// (the environment and the first prompt: two user texts, one record by rule 1)
	want := []string{"<environment_context>\n  <cwd>/home/dev/site</cwd>\n</environment_context>|Make the header sticky", "Also on mobile", "Thanks"}
	conv := "019a0128-0000-7000-8000-0000000d0128"
	s := openStore(t)
	if _, _, err := run(t, s, "codex", Options{}, codexDesktop); err != nil {
		t.Fatal(err)
	}
	if got := userTexts(storedRecords(t, s, conv)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("user records %q, want %q", got, want)
	}
	base := ids(t, s, conv)
	lines := strings.SplitAfter(string(whole), "\n")
	for cut := 1; cut < len(lines)-1; cut++ {
		dir := t.TempDir()
		p := filepath.Join(dir, filepath.Base(codexDesktop))
		if err := os.WriteFile(p, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		s := openStore(t)
		if _, _, err := run(t, s, "codex", Options{}, p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, whole, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, s, "codex", Options{}, p); err != nil {
			t.Fatal(err)
		}
		if got := userTexts(storedRecords(t, s, conv)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("cut at %d: user records %q, want %q", cut, got, want)
		}
		if got := ids(t, s, conv); got != base {
			t.Fatalf("cut at %d: ids differ from the whole file's:\n%s", cut, golden.FirstDiff(base, got))
		}
	}
}

// TestCodexReplacementHistoryCompaction: Codex 0.10x's remote compaction,
// compacted.replacement_history ending in an encrypted compaction item,
// is the summary's provider compaction, and render sends it back to
// openai-responses.
func TestCodexReplacementHistoryCompaction(t *testing.T) {
	s := openStore(t)
	_, warned, err := run(t, s, "codex", Options{}, codex0104)
	if err != nil {
		t.Fatal(err)
	}
	conv := "019a0104-0000-7000-8000-0000000c0104"
	recs := storedRecords(t, s, conv)
	var sum *transcript.Record
	for i := range recs {
		if recs[i].Message.Role == transcript.RoleSummary {
			sum = &recs[i]
		}
	}
	if sum == nil || !sum.IsCompaction() || sum.CompactionProvider() != "openai-responses" {
		t.Fatalf("summary %+v (warned %q): want an openai-responses compaction", sum, warned)
	}
	if !strings.Contains(string(sum.Message.ProviderData[len(sum.Message.ProviderData)-1].Item), "gAAAAABp-compaction-0104==") {
		t.Fatalf("provider data %+v", sum.Message.ProviderData)
	}
	var in bytes.Buffer
	for _, r := range recs {
		in.Write(transcript.AppendJSON(nil, &r))
		in.WriteByte('\n')
	}
	var out bytes.Buffer
	if err := format.RenderTranscript(&out, format.Request{Provider: "openai-responses"}, &in, transcript.NewIDs(), func() int64 { return 0 }); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "gAAAAABp-compaction-0104==") || strings.Contains(got, "Two handlers to port.") {
		t.Fatalf("render openai-responses: want the compaction sent in place of what it covers:\n%s", got)
	}
}
