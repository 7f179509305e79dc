package cmd

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
)

func TestClearFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    string // conversation runF sees; "" when it must not run
		errCode int
		errText string
	}{
		{args: []string{"-c", "demo", "--yes"}, want: "demo"},
		{args: []string{"--yes"}, errCode: exitcode.Usage, errText: "missing -c"},
		{args: []string{"-c", "demo"}, errCode: exitcode.Usage, errText: "add --yes"},
		{args: []string{"-c", "demo", "--yes", "extra"}, errCode: exitcode.Usage},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got string
			cmd := newCmdClear(f, func(_ context.Context, o *clearOptions) error {
				got = o.conversation
				return nil
			})
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if code := exitcode.Of(err); code != tt.errCode {
				t.Fatalf("exit %d (%v), want %d", code, err, tt.errCode)
			}
			if err != nil && !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("error %q lacks %q", err, tt.errText)
			}
			if got != tt.want {
				t.Errorf("runF saw %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClearRun(t *testing.T) {
	f, _, errOut := testFactory(t, "")
	if err := runCmd(t, f, "append", "-c", "demo", "hello"); err != nil {
		t.Fatal(err)
	}
	if err := clearRun(context.Background(), &clearOptions{f: f, conversation: "demo", yes: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), `cleared "demo": 1 record(s) deleted`) {
		t.Errorf("stderr %q", errOut)
	}
	err := clearRun(context.Background(), &clearOptions{f: f, conversation: "demo", yes: true})
	if !errors.Is(err, store.ErrNotFound) || exitcode.Of(err) != exitcode.NotFound {
		t.Errorf("second clear: %v (exit %d), want not found", err, exitcode.Of(err))
	}
}
