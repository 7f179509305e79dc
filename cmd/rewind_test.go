package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestRewindFlags(t *testing.T) {
	tests := []struct {
		args []string
		dry  bool
		code int
		text string
	}{
		{args: []string{"-c", "r", "--to", "last-user"}, dry: true},
		{args: []string{"-c", "r", "--to", "last-user", "--yes"}},
		{args: []string{"-c", "r", "--to", "last-user", "--yes", "--dry-run"}, dry: true},
		{args: []string{"--to", "last"}, code: exitcode.Usage, text: "missing -c"},
		{args: []string{"-c", "r"}, code: exitcode.Usage, text: "missing --to"},
		{args: []string{"-c", "r", "--to", "yesterday"}, code: exitcode.Usage, text: `--to "yesterday"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *rewindOptions
			execFlags(t, newCmdRewind(f, func(_ context.Context, o *rewindOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code != 0 {
				if got != nil {
					t.Fatal("runF ran after an error")
				}
				return
			}
			if got == nil || got.ref != transcript.RefLastUser || got.dryRun != tt.dry {
				t.Fatalf("options %+v, want dry run %v", got, tt.dry)
			}
		})
	}
}

func TestRewindRun(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	out, errOut := f.IO.Out.(*bytes.Buffer), f.IO.ErrOut.(*bytes.Buffer)
	ctx := context.Background()
	count := func() int {
		out.Reset()
		if err := getRun(ctx, &getOptions{f: f, conversation: "demo"}); err != nil {
			t.Fatal(err)
		}
		return strings.Count(out.String(), "\n")
	}

	// A dry run prints what would go and removes nothing.
	if err := rewindRun(ctx, &rewindOptions{f: f, conversation: "demo", to: "last-user", ref: transcript.RefLastUser, dryRun: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"contents":["Rainy."]`) || strings.Count(out.String(), "\n") != 1 ||
		!strings.Contains(errOut.String(), `dry run: 1 record(s) (0 summaries) would be removed from "demo"; add --yes`) {
		t.Fatalf("dry run: stdout %q stderr %q", out, errOut)
	}
	if n := count(); n != 6 {
		t.Fatalf("dry run left %d records", n)
	}

	// Past the summary: it goes too, printed in order.
	out.Reset()
	errOut.Reset()
	ref := transcript.Ref("01JRZJ166J2WRMF990535EVSQ2")
	if err := rewindRun(ctx, &rewindOptions{f: f, conversation: "demo", to: string(ref), ref: ref}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n") != 4 || !strings.Contains(errOut.String(), `rewound "demo" to 01JRZJ166J2WRMF990535EVSQ2: 4 record(s) removed (1 summaries)`) {
		t.Fatalf("rewind: stdout %q stderr %q", out, errOut)
	}
	if n := count(); n != 2 {
		t.Fatalf("rewind left %d records", n)
	}

	// Nothing after the last record; quiet prints nothing.
	out.Reset()
	errOut.Reset()
	f.quiet = true
	if err := rewindRun(ctx, &rewindOptions{f: f, conversation: "demo", to: "last", ref: transcript.RefLast}); err != nil || out.Len() != 0 {
		t.Fatalf("quiet rewind to last: %v, printed %q", err, out)
	}
	f.quiet = false
	if err := rewindRun(ctx, &rewindOptions{f: f, conversation: "demo", to: "last", ref: transcript.RefLast}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), `rewind "demo": nothing stands after last`) {
		t.Errorf("stderr %q", errOut)
	}

	if err := rewindRun(ctx, &rewindOptions{f: f, conversation: "nobody", ref: transcript.RefLast}); exitcode.Of(err) != exitcode.NotFound {
		t.Errorf("missing conversation: %v, want exit 4", err)
	}
}
