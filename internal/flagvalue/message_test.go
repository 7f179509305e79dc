package flagvalue

import (
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

func TestTexts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  []string
		err   string // "" : none; else the usage or input error's text
	}{
		{"none", nil, "", nil, ""},
		{"each argument a string", []string{"a", "b c"}, "ignored", []string{"a", "b c"}, ""},
		{"- reads stdin", []string{"-"}, "hello\n", []string{"hello"}, ""},
		{"- goes alone", []string{"a", "-"}, "", nil, "- (read stdin) goes alone, without TEXT arguments"},
		{"an empty stdin", []string{"-"}, "\n", nil, "the message on stdin is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Texts(strings.NewReader(tc.stdin), tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		contents   []string
		role, call string
		isError    bool
		want       *transcript.Message
		usage      string // "" : no error
	}{
		{"no text, no flags: nothing", nil, "user", "", false, nil, ""},
		{"a flag without text", nil, "assistant", "", false, nil, "--role, --tool-call-id, --name and --is-error build a message from TEXT arguments; none given"},
		{"--is-error without text", nil, "user", "", true, nil, "none given"},
		{"a user message", []string{"hi", "there"}, "user", "", false, &transcript.Message{Role: transcript.RoleUser, Contents: []string{"hi", "there"}}, ""},
		{"a tool result", []string{"42"}, "tool", "call_1", true, &transcript.Message{Role: transcript.RoleTool, Contents: []string{"42"}, ToolCallID: "call_1", IsError: true}, ""},
		{"an unknown role", []string{"hi"}, "bot", "", false, nil, `--role "bot": want system, user, assistant, tool or summary`},
		{"a tool result without its call", []string{"42"}, "tool", "", false, nil, "tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Message(tc.contents, tc.role, tc.call, "", tc.isError)
			if tc.usage != "" {
				usage(t, err, tc.usage)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == nil && got != nil:
				t.Fatalf("got %+v, want no message", got)
			case tc.want != nil && (got == nil || got.Message.Role != tc.want.Role || !slices.Equal(got.Message.Contents, tc.want.Contents) ||
				got.Message.ToolCallID != tc.want.ToolCallID || got.Message.IsError != tc.want.IsError):
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
