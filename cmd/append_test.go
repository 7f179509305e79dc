package cmd

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestAppendFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		tty   bool
		code  int
		text  string
		check func(*testing.T, *appendOptions)
	}{
		{name: "text", args: []string{"-c", "demo", "--role", "assistant", "--timing", "llmEnd=now", "--aux", "k=1", "Hi", "there"},
			check: func(t *testing.T, o *appendOptions) {
				r := o.add
				if r == nil || r.Message.Role != "assistant" || strings.Join(r.Message.Contents, "|") != "Hi|there" ||
					*r.Metadata.Timing.LLMEnd != 1744815823058 || string(r.Metadata.Aux["k"]) != "1" {
					t.Fatalf("record %+v", r)
				}
			}},
		{name: "tool result", args: []string{"--role", "tool", "--tool-call-id", "c1", "--name", "f", "--is-error", "failed"},
			check: func(t *testing.T, o *appendOptions) {
				if m := o.add.Message; m.ToolCallID != "c1" || m.Name != "f" || !m.IsError {
					t.Fatalf("message %+v", m)
				}
			}},
		{name: "stdin", args: []string{"-c", "demo", "--timing", "playStart=5"},
			check: func(t *testing.T, o *appendOptions) {
				if o.add != nil || o.an.Timing["playStart"] != 5 {
					t.Fatalf("options %+v", o)
				}
			}},
		{name: "transform from a terminal", args: []string{"Hi"}, tty: true},
		{name: "from skips the checks", args: []string{"-c", "demo", "--from", "openai", "--role", "robot"},
			check: func(t *testing.T, o *appendOptions) {
				if o.from != "openai" || o.an != nil {
					t.Fatalf("options %+v", o)
				}
			}},
		{name: "unknown role", args: []string{"--role", "robot", "x"}, code: exitcode.Usage, text: `--role "robot"`},
		{name: "invalid message", args: []string{"--role", "tool", "x"}, code: exitcode.Usage, text: "tool_call_id"},
		{name: "tool flags without text", args: []string{"-c", "demo", "--name", "f"}, code: exitcode.Usage, text: "none given"},
		{name: "nothing on a terminal", args: []string{"-c", "demo"}, tty: true, code: exitcode.Usage, text: "nothing to append"},
		{name: "unknown timing key", args: []string{"--timing", "playBegin=1", "x"}, code: exitcode.Input, text: "unknown timing key"},
		{name: "bad timing value", args: []string{"--timing", "playStart=soon", "x"}, code: exitcode.Usage, text: "want milliseconds"},
		{name: "bad aux", args: []string{"--aux", "k=v", "x"}, code: exitcode.Usage, text: "--aux k"},
		{name: "long id", args: []string{"-c", strings.Repeat("x", 300), "x"}, code: exitcode.Usage, text: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			f.IO.SetStdinTTY(tt.tty)
			var got *appendOptions
			execFlags(t, newCmdAppend(f, func(_ context.Context, o *appendOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code != 0 {
				if got != nil {
					t.Fatal("runF ran after an error")
				}
				return
			}
			if got == nil {
				t.Fatal("runF did not run")
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

// appendOpts returns the options a command line gives, checked.
func appendOpts(t *testing.T, f *Factory, args ...string) *appendOptions {
	t.Helper()
	var o *appendOptions
	execFlags(t, newCmdAppend(f, func(_ context.Context, got *appendOptions) error { o = got; return nil }), 0, "", args...)
	return o
}

func TestAppendRunStored(t *testing.T) {
	ctx := context.Background()
	f, out, errOut := testFactory(t, "")
	if err := appendRun(ctx, appendOpts(t, f, "-c", "demo", "--role", "assistant", "Hello!")); err != nil {
		t.Fatal(err)
	}
	// A fake user record first (rule 2), then the message: both printed.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"contents":["..."]},"metadata":{"attribute":["fake"]`) ||
		!strings.Contains(lines[1], `"role":"assistant","contents":["Hello!"]`) {
		t.Fatalf("output:\n%s", out)
	}

	// Records on stdin, annotated; a retried id is skipped and said so; a
	// merge prints the merged record.
	f.IO.In = strings.NewReader(chat[1] + "\n" + chat[1] + "\n" + `{"role":"user","content":"more"}` + "\n")
	out.Reset()
	if err := appendRun(ctx, appendOpts(t, f, "-c", "demo", "--aux", "src=\"test\"")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "1 record(s) already stored, skipped") {
		t.Errorf("stderr %q", errOut)
	}
	if !strings.Contains(out.String(), `"contents":["Weather in Paris?","more"]},"metadata":{"attribute":["merged"]`) || !strings.Contains(out.String(), `"aux":{"src":"test"}`) {
		t.Errorf("output:\n%s", out)
	}

	// Quiet: stored, nothing printed.
	out.Reset()
	o := appendOpts(t, f, "-c", "demo", "--role", "assistant", "Sunny.")
	f.quiet = true
	if err := appendRun(ctx, o); err != nil || out.Len() != 0 {
		t.Fatalf("quiet: %v, printed %q", err, out)
	}
	f.quiet = false
}

// A bad line is invalid input naming its line, and nothing is stored.
func TestAppendRunInvalidInput(t *testing.T) {
	f, out, _ := testFactory(t, chat[1]+"\n"+`{"role":"robot","content":"x"}`+"\n")
	err := appendRun(context.Background(), appendOpts(t, f, "-c", "demo"))
	var ie *transcript.InputError
	if exitcode.Of(err) != exitcode.Input || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "line 2: ") {
		t.Fatalf("err %v (exit %d), want exit 3 naming line 2", err, exitcode.Of(err))
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out)
	}
	if err := getRun(context.Background(), &getOptions{f: f, conversation: "demo"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after a failed append: %v, want not found", err)
	}
}

// Without -c append is a transform: stdin's transcript, then the new
// message, rules applied; --timing annotates what stdin holds when no
// message is built.
func TestAppendRunTransform(t *testing.T) {
	ctx := context.Background()
	f, out, _ := testFactory(t, `{"role":"user","content":"a"}`+"\n"+`{"role":"user","content":"b"}`+"\n")
	if err := appendRun(ctx, appendOpts(t, f, "--role", "assistant", "c")); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"conversation":"stdin","message":{"role":"user","contents":["a","b"]}`) ||
		!strings.Contains(lines[1], `"role":"assistant","contents":["c"]`) {
		t.Fatalf("output:\n%s", out)
	}

	f, out, _ = testFactory(t, `{"role":"user","content":"a"}`+"\n")
	if err := appendRun(ctx, appendOpts(t, f, "--timing", "playEnd=3")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"playEnd":3`) {
		t.Errorf("stdin not annotated:\n%s", out)
	}

	// From a terminal, only the message.
	f, out, _ = testFactory(t, "")
	f.IO.SetStdinTTY(true)
	if err := appendRun(ctx, appendOpts(t, f, "Hi")); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), `"contents":["Hi"]`) {
		t.Errorf("output:\n%s", out)
	}
}

// --from reads a provider's answer on stdin and stores it as any append.
func TestAppendRunFrom(t *testing.T) {
	body := `{"id":"chatcmpl-1","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}]}`
	f, out, _ := testFactory(t, body)
	if err := runCmd(t, f, "append", "-c", "demo", "Hello"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	f.IO.In = strings.NewReader(body)
	if err := appendRun(context.Background(), appendOpts(t, f, "-c", "demo", "--from", "openai")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"role":"assistant","contents":["Hi!"]`) {
		t.Errorf("output:\n%s", out)
	}
	err := appendRun(context.Background(), appendOpts(t, f, "-c", "demo", "--from", "cohere"))
	if exitcode.Of(err) != exitcode.Usage {
		t.Errorf("--from cohere: %v, want exit 2", err)
	}

	// An answer cut short is refused unless --allow-incomplete; without -c
	// the record is printed alone.
	cut := strings.Replace(body, `"stop"`, `"length"`, 1)
	f.IO.In = strings.NewReader(cut)
	err = appendRun(context.Background(), appendOpts(t, f, "-c", "demo", "--from", "openai"))
	if err == nil || !strings.Contains(err.Error(), "--allow-incomplete") {
		t.Errorf("cut answer: %v", err)
	}
	out.Reset()
	f.IO.In = strings.NewReader(cut)
	if err := appendRun(context.Background(), appendOpts(t, f, "--from", "openai", "--allow-incomplete", "--aux", "k=1")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"conversation":"stdin","message":{"role":"assistant","contents":["Hi!"]}`) || !strings.Contains(out.String(), `"k":1`) {
		t.Errorf("output:\n%s", out)
	}
}

// --summarize-if-over summarizes right after the append and prints the
// summary too.
func TestAppendRunSummarizes(t *testing.T) {
	f, out, errOut := testFactory(t, strings.Join(chat[:3], "\n")+"\n"+chat[4]+"\n"+chat[5]+"\n"+`{"role":"user","content":"Thanks"}`+"\n")
	if err := runCmd(t, f, "append", "-q", "-c", "demo", "--summarize-if-over", "1", "--keep-last", "1"); err != nil {
		t.Fatal(err)
	}
	if errOut.Len() != 0 {
		t.Fatalf("stderr %q", errOut)
	}
	out.Reset()
	if err := runCmd(t, f, "get", "-c", "demo"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"role":"summary"`) {
		t.Errorf("no summary stored:\n%s", out)
	}
}

// The same provider response appended twice (a retried script) is stored
// once: the answer's id derives from the response id, and a known id is
// skipped. Another response is another answer (merged, as two assistant
// records in a row are).
func TestAppendFromTwice(t *testing.T) {
	body := `{"id":"chatcmpl-1","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}]}`
	f, out, errOut := testFactory(t, "")
	if err := runCmd(t, f, "append", "-c", "demo", "Hello"); err != nil {
		t.Fatal(err)
	}
	for i, b := range []string{body, body, strings.Replace(body, "chatcmpl-1", "chatcmpl-2", 1)} {
		f.IO.In = strings.NewReader(b)
		if err := appendRun(context.Background(), appendOpts(t, f, "-c", "demo", "--from", "openai")); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if i == 1 && !strings.Contains(errOut.String(), "1 record(s) already stored, skipped") {
			t.Errorf("second append of the same response: stderr %q", errOut)
		}
	}
	out.Reset()
	if err := runCmd(t, f, "get", "-c", "demo"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, `"contents":["Hi!","Hi!"]`) {
		t.Errorf("stored:\n%s\nwant the user message and one answer per response id", got)
	}
}
