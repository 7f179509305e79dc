package cmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestForkFlags(t *testing.T) {
	tests := []struct {
		args []string
		ref  transcript.Ref
		code int
		text string
	}{
		{args: []string{"-c", "a", "--to", "b"}},
		{args: []string{"-c", "a", "--to", "b", "--at", "last-user", "--force"}, ref: transcript.RefLastUser},
		{args: []string{"--to", "b"}, code: exitcode.Usage, text: "missing -c"},
		{args: []string{"-c", "a"}, code: exitcode.Usage, text: "missing --to"},
		{args: []string{"-c", "a", "--to", "a"}, code: exitcode.Usage, text: `--to "a" is the conversation forked from`},
		{args: []string{"-c", "a", "--to", strings.Repeat("b", 300)}, code: exitcode.Usage, text: "longer than"},
		{args: []string{"-c", "a", "--to", "b", "--at", "first"}, code: exitcode.Usage, text: `--at "first"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *forkOptions
			execFlags(t, newCmdFork(f, func(_ context.Context, o *forkOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code != 0 {
				if got != nil {
					t.Fatal("runF ran after an error")
				}
				return
			}
			if got == nil || got.src != "a" || got.dst != "b" || got.ref != tt.ref {
				t.Fatalf("options %+v", got)
			}
		})
	}
}

func TestForkRun(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	errOut := f.IO.ErrOut.(*bytes.Buffer)
	out := f.IO.Out.(*bytes.Buffer)
	ctx := context.Background()
	if err := forkRun(ctx, &forkOptions{f: f, src: "demo", dst: "copy", ref: transcript.RefLastUser}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), `forked "demo" into "copy": 5 record(s)`) {
		t.Errorf("stderr %q", errOut)
	}
	out.Reset()
	if err := getRun(ctx, &getOptions{f: f, conversation: "copy"}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n") != 5 || !strings.Contains(out.String(), `"forkedFrom":"01JRZJ166J2WRMF990535EVSQ5"`) || strings.Contains(out.String(), "Rainy") {
		t.Errorf("fork:\n%s", out)
	}

	// An existing target is an error unless --force.
	err := forkRun(ctx, &forkOptions{f: f, src: "demo", dst: "copy"})
	if !errors.Is(err, store.ErrExists) || exitcode.Of(err) != exitcode.Failure {
		t.Errorf("existing target: %v (exit %d)", err, exitcode.Of(err))
	}
	errOut.Reset()
	if err := forkRun(ctx, &forkOptions{f: f, src: "demo", dst: "copy", force: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), `replaced "copy" (5 record(s) deleted)`) || !strings.Contains(errOut.String(), ": 6 record(s)") {
		t.Errorf("stderr %q", errOut)
	}

	for _, o := range []*forkOptions{
		{f: f, src: "nobody", dst: "x"},
		{f: f, src: "demo", dst: "x", ref: "01JRZJ166J2WRMF990535EVSQZ"},
	} {
		if err := forkRun(ctx, o); exitcode.Of(err) != exitcode.NotFound {
			t.Errorf("%+v: %v, want exit 4", o, err)
		}
	}
}
