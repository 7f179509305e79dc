package cmd

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
)

func TestCopyFlags(t *testing.T) {
	tests := []struct {
		args []string
		code int
		text string
	}{
		{args: []string{"-c", "a", "--to", "b.db"}},
		{args: []string{"--all", "--to", "file:b.db", "--force"}},
		{args: []string{"--all", "--to", "postgres://u@h/db"}},
		{args: []string{"--all", "--to", "postgresql://u@h/db?sslmode=disable"}},
		{args: []string{"--all"}, code: exitcode.Usage, text: "missing --to STORE"},
		{args: []string{"--to", "b.db"}, code: exitcode.Usage, text: "missing -c ID or --all"},
		{args: []string{"-c", "a", "--all", "--to", "b.db"}, code: exitcode.Usage, text: "give -c or --all, not both"},
		{args: []string{"-c", strings.Repeat("a", 300), "--to", "b.db"}, code: exitcode.Usage, text: "longer than"},
		{args: []string{"--all", "--to", "mysql://h/db"}, code: exitcode.Usage, text: `--to: unsupported store "mysql:"`},
		{args: []string{"--all", "--to", "file:"}, code: exitcode.Usage, text: "--to file: names no file"},
		{args: []string{"--all", "--to", "b.db", "extra"}, code: exitcode.Usage, text: "extra"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *copyOptions
			execFlags(t, newCmdCopy(f, func(_ context.Context, o *copyOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code != 0 {
				if got != nil {
					t.Fatal("runF ran after an error")
				}
				return
			}
			if got == nil || got.to != tt.args[len(tt.args)-1] && got.to != tt.args[len(tt.args)-2] {
				t.Fatalf("options %+v", got)
			}
		})
	}
}

func TestCopyRun(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	errOut := f.IO.ErrOut.(*bytes.Buffer)
	out := f.IO.Out.(*bytes.Buffer)
	ctx := context.Background()
	target := filepath.Join(t.TempDir(), "target.db")

	if err := copyRun(ctx, &copyOptions{f: f, to: target, conversation: "demo"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "copied 1 conversation (6 record(s)) to sqlite "+target) || out.Len() != 0 {
		t.Fatalf("stdout %q, stderr %q", out, errOut)
	}
	err := copyRun(ctx, &copyOptions{f: f, to: target, conversation: "demo"})
	if !errors.Is(err, store.ErrExists) || exitcode.Of(err) != exitcode.Failure {
		t.Fatalf("copy onto an existing conversation: %v (exit %d)", err, exitcode.Of(err))
	}
	err = copyRun(ctx, &copyOptions{f: f, to: target, conversation: "nobody"})
	if !errors.Is(err, store.ErrNotFound) || exitcode.Of(err) != exitcode.NotFound {
		t.Fatalf("copy of a missing conversation: %v (exit %d)", err, exitcode.Of(err))
	}
	errOut.Reset()
	err = copyRun(ctx, &copyOptions{f: f, to: target, all: true})
	if exitcode.Of(err) != exitcode.Failure || !strings.Contains(errOut.String(), `not copied: conversation "demo" already exists`) {
		t.Fatalf("copy --all onto an existing conversation: %v (exit %d), stderr %q", err, exitcode.Of(err), errOut)
	}
	errOut.Reset()
	if err := copyRun(ctx, &copyOptions{f: f, to: "file:" + target, all: true, force: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "copied 1 conversation(s) (6 record(s))") {
		t.Fatalf("stderr %q", errOut)
	}
}

// The source named again as the target, under another spelling, is refused.
func TestCopyOntoItself(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	dir, file := filepath.Split(f.db)
	t.Chdir(dir)
	for _, to := range []string{f.db, "file:" + f.db, "file://" + f.db, file, "./" + file} {
		err := copyRun(context.Background(), &copyOptions{f: f, to: to, all: true})
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "--to names the store copied from") {
			t.Errorf("--to %s: %v", to, err)
		}
	}
}
