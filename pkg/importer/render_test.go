package importer

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestRenderOwnProvider renders each format's imported main session for
// the provider that made it: what the provider sent back (thinking with
// its signature, reasoning items, custom tool calls) goes back in place.
func TestRenderOwnProvider(t *testing.T) {
	for _, tc := range []struct {
		format, conv, provider string
		full                   bool // the whole history, as render --full: summaries left out
	}{
		{"claude-code", "agent-a0b1c2", "anthropic", false},
		{"claude-code", "11111111-2222-3333-4444-555555555555", "anthropic", false},
		{"claude-code", "11111111-2222-3333-4444-555555555555", "anthropic", true},
		{"codex", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "openai-responses", false},
		{"codex", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "openai-responses", true},
		{"gemini-cli", "9f8e7d6c-0000-4000-8000-000000000001", "gemini", false},
		{"chatgpt", "6650a1b2-0000-4000-8000-00000000c0de", "openai", false},
		{"claude-ai", "c1a2b3c4-0000-4000-8000-0000000000aa", "anthropic", false},
	} {
		name := tc.format + "-" + tc.conv[:8]
		if tc.full {
			name += "-full"
		}
		t.Run(name, func(t *testing.T) {
			s := openStore(t)
			if _, _, err := run(t, s, tc.format, Options{}, filepath.Join("testdata", tc.format)); err != nil {
				t.Fatal(err)
			}
			var in bytes.Buffer
			if err := s.Read(context.Background(), tc.conv, store.ReadOptions{}, func(r store.Row) error {
				if tc.full && r.Role == string(transcript.RoleSummary) {
					return nil
				}
				in.Write(r.Body)
				in.WriteByte('\n')
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			req := format.Request{Provider: tc.provider}
			if err := format.RenderTranscript(&out, req, &in, transcript.NewIDs(), func() int64 { return 0 }); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "render-"+name+".json", strings.TrimSpace(out.String())+"\n")
		})
	}
}
