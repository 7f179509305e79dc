package importer

import (
	"encoding/base64"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressReachesSize: the bytes Progress is told of add up to the
// files' sizes, whatever the format and however the file is read (whole,
// from a cursor's offset, unchanged and skipped, a zip), and an export
// read whole moves the bar as it is read, not once at its end: counted
// by events, no clock.
func TestProgressReachesSize(t *testing.T) {
	var body strings.Builder
	body.WriteString("[")
	rng := rand.New(rand.NewSource(1))
	noise := make([]byte, 750)
	for i := range 2000 {
		if i > 0 {
			body.WriteString(",")
		}
		rng.Read(noise) // (a zip's ratio under 1:200)
		body.WriteString(gptConv(fmt.Sprintf("conv-%04d", i), base64.StdEncoding.EncodeToString(noise)))
	}
	body.WriteString("]")
	big := t.TempDir()
	if err := os.WriteFile(filepath.Join(big, "conversations.json"), []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bigZip := t.TempDir()
	writeZip(t, filepath.Join(bigZip, "export.zip"), []byte(body.String()))
	cases := []struct {
		format, dir string
		minEvents   int // of the first import
	}{
		{"claude-code", "testdata/claude-code", 1},
		{"codex", "testdata/codex", 1},
		{"gemini-cli", "testdata/gemini-cli", 1},
		{"chatgpt", "testdata/chatgpt", 1},
		{"claude-ai", "testdata/claude-ai", 1},
		{"chatgpt", big, 8},
		{"chatgpt", bigZip, 8},
	}
	for _, c := range cases {
		t.Run(c.format+" "+filepath.Base(c.dir), func(t *testing.T) {
			f, _ := Lookup(c.format)
			files, err := Files(f, []string{c.dir})
			if err != nil {
				t.Fatal(err)
			}
			var size int64
			for _, p := range files {
				fi, _ := os.Stat(p)
				size += fi.Size()
			}
			s := openStore(t)
			for _, pass := range []string{"first", "unchanged"} {
				var sum int64
				events := 0
				opt := Options{Progress: func(n int64) {
					if n <= 0 {
						t.Errorf("%s: progress of %d bytes", pass, n)
					}
					sum += n
					events++
				}}
				if _, _, err := run(t, s, c.format, opt, c.dir); err != nil {
					t.Fatal(err)
				}
				if sum != size {
					t.Fatalf("%s import: progress told of %d bytes of %d (%d%%)", pass, sum, size, sum*100/size)
				}
				if pass == "first" && events < c.minEvents {
					t.Fatalf("%s import: %d progress events, want at least %d (the bar moves as the file is read)", pass, events, c.minEvents)
				}
			}
		})
	}
	// A grown file read from its cursor's offset.
	dir := t.TempDir()
	p := filepath.Join(dir, "rollout-2026-06-01T08-00-00-019a0129-0000-7000-8000-0000000e0129.jsonl")
	log := codexExecLog(t)
	lines := strings.SplitAfter(log, "\n")
	if err := os.WriteFile(p, []byte(strings.Join(lines[:8], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, _, err := run(t, s, "codex", Options{}, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var sum int64
	if _, _, err := run(t, s, "codex", Options{Progress: func(n int64) { sum += n }}, p); err != nil {
		t.Fatal(err)
	}
	if sum != int64(len(log)) {
		t.Fatalf("grown file: progress told of %d bytes of %d", sum, len(log))
	}
}
