package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/store"
)

func TestGetFlags(t *testing.T) {
	tests := []struct {
		args []string
		want store.ReadOptions
		code int
		text string
	}{
		{args: []string{"-c", "demo"}},
		{args: []string{"-c", "demo", "--limit", "2"}, want: store.ReadOptions{Limit: 2}},
		{args: []string{"-c", "demo", "--before", "01jrzj166j2wrmf990535evsqs"}, want: store.ReadOptions{BeforeID: "01JRZJ166J2WRMF990535EVSQS"}},
		{args: []string{"-c", "demo", "--before", "1000"}, want: store.ReadOptions{BeforeTime: 1000}},
		{args: []string{"-c", "demo", "--before", "1970-01-01T00:00:01Z"}, want: store.ReadOptions{BeforeTime: 1000}},
		{args: []string{"--limit", "2"}, code: exitcode.Usage, text: "missing -c"},
		{args: []string{"-c", "demo", "--limit", "-1"}, code: exitcode.Usage, text: "--limit -1: want 0 (every record) or more"},
		{args: []string{"-c", "demo", "--limit", "0"}, want: store.ReadOptions{}},
		{args: []string{"-c", "demo", "--before", "yesterday"}, code: exitcode.Usage, text: `--before "yesterday"`},
		{args: []string{"-c", "demo", "--limit", "x"}, code: exitcode.Usage, text: "invalid argument"},
		{args: []string{"-c", "demo", "more"}, code: exitcode.Usage, text: `unexpected argument "more"`},
		{args: []string{"-c", strings.Repeat("x", 257)}, code: exitcode.Usage, text: "longer than 256 bytes"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *getOptions
			execFlags(t, newCmdGet(f, func(_ context.Context, o *getOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code != 0 {
				if got != nil {
					t.Fatal("runF ran after a usage error")
				}
				return
			}
			if got == nil || got.read != tt.want || got.conversation != "demo" {
				t.Fatalf("options %+v, want read %+v", got, tt.want)
			}
		})
	}
}

func TestGetRun(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	out := f.IO.Out.(interface{ String() string })
	if err := getRun(context.Background(), &getOptions{f: f, conversation: "demo", read: store.ReadOptions{Limit: 2}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "And Lisbon?") || !strings.Contains(lines[1], "Rainy.") {
		t.Fatalf("get --limit 2:\n%s", out)
	}
	if !strings.HasPrefix(lines[0], `{"id":"01JRZJ166J2WRMF990535EVSQ5","conversation":"demo","message":{"role":"user"`) {
		t.Errorf("not canonical: %s", lines[0])
	}

	err := getRun(context.Background(), &getOptions{f: f, conversation: "nobody"})
	if exitcode.Of(err) != exitcode.NotFound || !strings.Contains(err.Error(), `"nobody"`) {
		t.Errorf("missing conversation: %v (exit %d), want exit 4 naming it", err, exitcode.Of(err))
	}
	err = getRun(context.Background(), &getOptions{f: f, conversation: "demo", read: store.ReadOptions{BeforeID: "01JRZJ166J2WRMF990535EVSQZ"}})
	if exitcode.Of(err) != exitcode.NotFound {
		t.Errorf("--before an unknown record: %v, want exit 4", err)
	}
}
