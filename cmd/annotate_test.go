package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestAnnotateFlags(t *testing.T) {
	tests := []struct {
		args []string
		ref  transcript.Ref
		code int
		text string
	}{
		{args: []string{"-c", "v", "--id", "last-assistant", "--timing", "playStart=now"}, ref: transcript.RefLastAssistant},
		{args: []string{"-c", "v", "--id", "01jrzj166j2wrmf990535evsq4", "--unset-aux", "k"}, ref: "01JRZJ166J2WRMF990535EVSQ4"},
		{args: []string{"--id", "last", "--aux", "k=1"}, code: exitcode.Usage, text: "missing -c"},
		{args: []string{"-c", "v", "--aux", "k=1"}, code: exitcode.Usage, text: "missing --id"},
		{args: []string{"-c", "v", "--id", "nope", "--aux", "k=1"}, code: exitcode.Usage, text: `--id "nope": want a record id, or last`},
		{args: []string{"-c", "v", "--id", "last"}, code: exitcode.Usage, text: "nothing to change"},
		{args: []string{"-c", "v", "--id", "last", "--timing", "playstart=1"}, code: exitcode.Input, text: `--timing: unknown timing key "playstart"`},
		{args: []string{"-c", "v", "--id", "last", "--timing", "playStart=soon"}, code: exitcode.Usage, text: "want milliseconds since the epoch or now"},
		{args: []string{"-c", "v", "--id", "last", "--aux", "k=notjson"}, code: exitcode.Usage, text: "--aux k: invalid JSON"},
		{args: []string{"-c", "v", "--id", "last", "--unset-aux", ""}, code: exitcode.Usage, text: "--unset-aux: want a KEY"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *annotateOptions
			execFlags(t, newCmdAnnotate(f, func(_ context.Context, o *annotateOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code != 0 {
				if got != nil {
					t.Fatal("runF ran after an error")
				}
				return
			}
			if got == nil || got.ref != tt.ref || got.an == nil || got.an.Empty() {
				t.Fatalf("options %+v", got)
			}
		})
	}
	// --timing now is the factory's clock.
	f, _, _ := testFactory(t, "")
	var got *annotateOptions
	execFlags(t, newCmdAnnotate(f, func(_ context.Context, o *annotateOptions) error { got = o; return nil }), 0, "", "-c", "v", "--id", "last", "--timing", "playStart=now")
	if got.an.Timing["playStart"] != 1744815823058 {
		t.Errorf("now = %d", got.an.Timing["playStart"])
	}
}

func TestAnnotateRun(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	out := f.IO.Out.(*bytes.Buffer)
	ctx := context.Background()
	o := &annotateOptions{f: f, conversation: "demo", ref: transcript.RefLastAssistant,
		an: &transcript.Annotation{Timing: map[string]int64{"playStart": 10}}}
	if err := annotateRun(ctx, o); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"01JRZJ166J2WRMF990535EVSQ6","conversation":"demo","message":{"role":"assistant","contents":["Rainy."]},"metadata":{"timing":{"creation":6,"playStart":10}}}` + "\n"
	if out.String() != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}

	out.Reset()
	f.quiet = true
	if err := annotateRun(ctx, &annotateOptions{f: f, conversation: "demo", ref: transcript.RefLastUser, an: &transcript.Annotation{UnsetAux: []string{"x"}}}); err != nil || out.Len() != 0 {
		t.Errorf("quiet: %v, printed %q", err, out)
	}
	f.quiet = false

	for _, o := range []*annotateOptions{
		{f: f, conversation: "demo", ref: "01JRZJ166J2WRMF990535EVSQZ"},
		{f: f, conversation: "nobody", ref: transcript.RefLast},
	} {
		o.an = &transcript.Annotation{UnsetAux: []string{"x"}}
		err := annotateRun(ctx, o)
		if exitcode.Of(err) != exitcode.NotFound || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s in %s: %v, want exit 4", o.ref, o.conversation, err)
		}
	}
}
