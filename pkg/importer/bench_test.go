package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// writeSession writes a Claude Code session of about size bytes: turns of
// a user message, thinking, text, a tool call and its result.
func writeSession(tb testing.TB, path string, size int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	body := strings.Repeat("Some source text of the file being read, line by line. ", 40)
	parent, n, written := "", 0, 0
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		n++
		id := fmt.Sprintf("e%08d", n)
		v["uuid"], v["sessionId"], v["timestamp"] = id, "bench", t0.Add(time.Duration(n)*time.Second).Format(time.RFC3339Nano)
		if parent != "" {
			v["parentUuid"] = parent
		} else {
			v["parentUuid"] = nil
		}
		parent = id
		b, _ := json.Marshal(v)
		written += len(b) + 1
		_ = enc.Encode(v)
	}
	for turn := 0; written < size; turn++ {
		mid := fmt.Sprintf("msg_%d", turn)
		call := fmt.Sprintf("toolu_%d", turn)
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Please read file " + fmt.Sprint(turn)}})
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": mid, "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "thinking", "thinking": "I will read it.", "signature": "c2lnbmF0dXJl"}}}})
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": mid, "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": "Reading the file."}}}})
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": mid, "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "tool_use", "id": call, "name": "Read", "input": map[string]any{"file_path": "/x.go"}}},
			"usage":   map[string]any{"input_tokens": 100, "output_tokens": 20}}})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": body}}}})
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": mid + "b", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": "Done with file " + fmt.Sprint(turn)}}}})
	}
}

// BenchmarkImportVsAppend imports a 16 MB Claude Code session into an
// empty store, and appends the same records (those the import hands the
// store, merges included) through the plain bulk path into another: the
// ratio of the two rates is the import's overhead (decoding, ids, cursors,
// chunks); the goal is 0.7 or more.
func BenchmarkImportVsAppend(b *testing.B) {
	const size = 16 << 20
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	writeSession(b, path, size)
	fi, _ := os.Stat(path)
	// The records the import hands the store, to append plainly.
	rec := &recorder{Store: openStore(b)}
	if _, _, err := run(b, rec, "claude-code", Options{}, path); err != nil {
		b.Fatal(err)
	}
	recs := rec.recs
	var imp, app time.Duration
	b.ResetTimer()
	for range b.N {
		s := openStore(b)
		start := time.Now()
		if _, _, err := run(b, s, "claude-code", Options{}, path); err != nil {
			b.Fatal(err)
		}
		imp += time.Since(start)
		s2 := openStore(b)
		start = time.Now()
		if _, err := s2.Append(context.Background(), "bench", transcript.NewIDs(), transcript.Slice(recs...)); err != nil {
			b.Fatal(err)
		}
		app += time.Since(start)
	}
	mb := float64(fi.Size()) * float64(b.N) / (1 << 20)
	b.ReportMetric(mb/imp.Seconds(), "import-MB/s")
	b.ReportMetric(mb/app.Seconds(), "append-MB/s")
	b.ReportMetric(app.Seconds()/imp.Seconds(), "ratio")
}

// BenchmarkReimportUnchanged re-imports 1,000 session files none of which
// changed: each is skipped by its size and modification time, unread
// (goal: 1 s or less for the 1,000).
func BenchmarkReimportUnchanged(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		writeSession(b, filepath.Join(dir, fmt.Sprintf("s%04d.jsonl", i)), 2000)
	}
	s := openStore(b)
	if _, _, err := run(b, s, "claude-code", Options{}, dir); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		im, _, err := run(b, s, "claude-code", Options{}, dir)
		if err != nil {
			b.Fatal(err)
		}
		if im.Tally.Unchanged != 1000 {
			b.Fatalf("unchanged = %d, want 1000", im.Tally.Unchanged)
		}
	}
}

// recorder is a store that keeps what ImportAppend is given.
type recorder struct {
	store.Store
	recs []transcript.Record
}

func (r *recorder) ImportAppend(ctx context.Context, cur store.ImportCursor, ids *transcript.IDs, recs transcript.Stream) (store.AppendResult, error) {
	var mine []transcript.Record
	if err := recs(func(rec *transcript.Record) error {
		mine = append(mine, rec.Clone())
		return nil
	}); err != nil {
		return store.AppendResult{}, err
	}
	r.recs = append(r.recs, mine...)
	return r.Store.ImportAppend(ctx, cur, ids, transcript.Slice(mine...))
}
