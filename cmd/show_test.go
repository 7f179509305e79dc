package cmd

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
)

func TestShowFlags(t *testing.T) {
	tests := []struct {
		args []string
		json bool
		code int
		text string
	}{
		{args: []string{"-c", "demo"}},
		{args: []string{"-c", "demo", "--json"}, json: true},
		{args: []string{}, code: exitcode.Usage, text: "missing -c"},
		{args: []string{"-c", "demo", "x"}, code: exitcode.Usage, text: "unexpected argument"},
		{args: []string{"-c", "demo", "--jsn"}, code: exitcode.Usage, text: "unknown flag"},
		{args: []string{"-c", "demo", "--plain", "--json"}, code: exitcode.Usage, text: "give one"},
		{args: []string{"-c", "demo", "--plain", "-v"}, code: exitcode.Usage, text: "give one"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			var got *showOptions
			execFlags(t, newCmdShow(f, func(_ context.Context, o *showOptions) error { got = o; return nil }), tt.code, tt.text, tt.args...)
			if tt.code == 0 && (got == nil || got.conversation != "demo" || got.json != tt.json) {
				t.Fatalf("options %+v", got)
			}
			if tt.code != 0 && got != nil {
				t.Fatal("runF ran after a usage error")
			}
		})
	}
}

// show --plain marks the latest summary, the first record sent after it
// and the next record to export, and prints tool calls, results and
// metadata, one line per record: the layout scripts parse.
func TestShowRun(t *testing.T) {
	f := appendTo(t, "demo", chat...)
	out := f.IO.Out.(*bytes.Buffer)
	ctx := context.Background()
	if err := showRun(ctx, &showOptions{f: f, conversation: "demo", plain: true}); err != nil {
		t.Fatal(err)
	}
	want := `conversation demo ('*' first record sent to the LLM, '^' latest summary, '-' next record to export)
0      - [system] {"Be brief."} -- 01JRZJ166J2WRMF990535EVSQ1 {timing={creation=1}}
1        [user] {"Weather in Paris?"} -- 01JRZJ166J2WRMF990535EVSQ2 {timing={creation=2}}
2        [assistant] {"Sunny."} -- 01JRZJ166J2WRMF990535EVSQ3 {timing={creation=3}}
3     ^  [summary] {"Paris is sunny."} -- 01JRZJ166J2WRMF990535EVSQ4 {summaryIds=[01JRZJ166J2WRMF990535EVSQ2, 01JRZJ166J2WRMF990535EVSQ3], timing={creation=4}}
4    *   [user] {"And Lisbon?"} -- 01JRZJ166J2WRMF990535EVSQ5 {timing={creation=5}}
5        [assistant] {"Rainy."} -- 01JRZJ166J2WRMF990535EVSQ6 {timing={creation=6}}
`
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}

	// Everything exported: the export marker says so under the records.
	out.Reset()
	if err := runCmd(t, f, "export", "-c", "demo", "--incremental"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := showRun(ctx, &showOptions{f: f, conversation: "demo", plain: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "-    -> index 6 (everything exported)\n") || strings.Contains(out.String(), " - [") {
		t.Errorf("after a full export:\n%s", out)
	}
	out.Reset()
	if err := showRun(ctx, &showOptions{f: f, conversation: "demo"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "6 records, everything exported\n") || regexp.MustCompile(`(?m)^[ 0-9]{4} ..-`).MatchString(out.String()) {
		t.Errorf("for people, after a full export:\n%s", out)
	}

	// --json prints what get prints.
	out.Reset()
	if err := showRun(ctx, &showOptions{f: f, conversation: "demo", json: true}); err != nil {
		t.Fatal(err)
	}
	asJSON := out.String()
	out.Reset()
	if err := runCmd(t, f, "get", "-c", "demo"); err != nil {
		t.Fatal(err)
	}
	if asJSON != out.String() || strings.Count(asJSON, "\n") != 6 {
		t.Errorf("show --json\n%s\nget\n%s", asJSON, out)
	}
	// Both print the stored records canonically: the fixtures, as stored.
	for i, line := range strings.Split(strings.TrimSuffix(asJSON, "\n"), "\n") {
		want := strings.Replace(chat[i], `"message"`, `"conversation":"demo","message"`, 1)
		if line != want {
			t.Errorf("show --json line %d:\n got %s\nwant %s", i+1, line, want)
		}
	}

	if err := showRun(ctx, &showOptions{f: f, conversation: "nobody"}); exitcode.Of(err) != exitcode.NotFound {
		t.Errorf("missing conversation: %v, want exit 4", err)
	}
}

func TestShowToolsAndMetadata(t *testing.T) {
	f := appendTo(t, "tools",
		`{"role":"assistant","tool_calls":[{"id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},{"id":"c2","name":"now","arguments":"{}"}]}`,
		`{"role":"tool","tool_call_id":"c1","name":"get_weather","is_error":true,"content":"timeout"}`,
		`{"role":"tool","tool_call_id":"c2","content":"ok"}`,
		`{"role":"assistant","content":"Done.","metadata":{"timing":{"creation":7,"llmEnd":9},"aux":{"k":{"a":1}}}}`,
	)
	out := f.IO.Out.(*bytes.Buffer)
	if err := showRun(context.Background(), &showOptions{f: f, conversation: "tools", plain: true}); err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		`(?m)^0    \* - \[user\] \{"\.\.\."\} -- [0-9A-Z]{26} \{attribute=\[fake\], timing=\{creation=1744815823058\}\}$`,
		`(?m)^1        \[assistant\] \{get_weather#c1\(\{"city":"Paris"\}\) now#c2\(\{\}\)\} -- `,
		`(?m)^2        \[tool\] \{"timeout"\} answers c1 \(get_weather\) error -- `,
		`(?m)^3        \[tool\] \{"ok"\} answers c2 -- `,
		`(?m)^4        \[assistant\] \{"Done\."\} -- [0-9A-Z]{26} \{timing=\{creation=7, llmEnd=9\}, aux=\{"k":\{"a":1\}\}\}$`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("no line matches %s in\n%s", re, out)
		}
	}
}
