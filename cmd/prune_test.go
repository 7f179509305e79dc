package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
)

func TestPruneFlags(t *testing.T) {
	const now, day = 1744815823058, 24 * 3600 * 1000
	tests := []struct {
		args   []string
		before int64
		code   int
		text   string
	}{
		{args: []string{"--older-than", "30d", "--dry-run"}, before: now - 30*day},
		{args: []string{"--keep-summaries", "--conversation-glob", "a*"}},
		{args: []string{}, code: exitcode.Usage, text: "give one"},
		{args: []string{"--older-than", "ages"}, code: exitcode.Usage, text: `--older-than "ages"`},
		{args: []string{"--keep-summaries", "x"}, code: exitcode.Usage, text: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *pruneOptions
			execFlags(t, newCmdPrune(f, func(_ context.Context, o *pruneOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code != 0 {
				if got != nil {
					t.Fatal("runF ran after an error")
				}
				return
			}
			if got == nil || got.before != tt.before {
				t.Fatalf("options %+v, want before %d", got, tt.before)
			}
		})
	}
}

func TestPruneRun(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	if err := runCmd(t, f, "append", "-q", "-c", "other", "hello"); err != nil {
		t.Fatal(err)
	}
	f.quiet = false // -q stays set on the factory
	out := f.IO.Out.(*bytes.Buffer)
	ctx := context.Background()

	// Trim to the latest summary, dry run first: nothing changes.
	if err := pruneRun(ctx, &pruneOptions{f: f, keepSummaries: true, dryRun: true}); err != nil {
		t.Fatal(err)
	}
	want := "would trim demo 2 records\nprune: 0 conversations would be deleted, 1 trimmed, 2 records removed (dry run: nothing changed)\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	out.Reset()
	if err := pruneRun(ctx, &pruneOptions{f: f, keepSummaries: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "trimmed demo 2 records\nprune: 0 conversations deleted, 1 trimmed, 2 records removed") {
		t.Errorf("trim:\n%s", out)
	}

	// Delete what is older than a cutoff past every activity; quiet.
	out.Reset()
	f.quiet = true
	if err := pruneRun(ctx, &pruneOptions{f: f, before: 1744815823059, glob: "oth*"}); err != nil || out.Len() != 0 {
		t.Fatalf("quiet prune: %v, printed %q", err, out)
	}
	f.quiet = false
	err := getRun(ctx, &getOptions{f: f, conversation: "other"})
	if exitcode.Of(err) != exitcode.NotFound {
		t.Errorf("pruned conversation: %v, want exit 4", err)
	}
	out.Reset()
	if err := getRun(ctx, &getOptions{f: f, conversation: "demo", read: store.ReadOptions{}}); err != nil || strings.Count(out.String(), "\n") != 4 {
		t.Errorf("trimmed conversation: %v\n%s", err, out)
	}
}
