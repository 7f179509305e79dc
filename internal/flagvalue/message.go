package flagvalue

import (
	"io"
	"slices"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/ask"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Texts reads the TEXT arguments of ask and append: each argument one
// content string, or a lone - the message on in (ask.ReadMessage); none
// is none.
func Texts(in io.Reader, args []string) ([]string, error) {
	if !slices.Contains(args, "-") {
		return slices.Clone(args), nil
	}
	if len(args) > 1 {
		return nil, exitcode.Usagef("- (read stdin) goes alone, without TEXT arguments")
	}
	return ask.ReadMessage(in)
}

// Message is the message append builds from its TEXT contents and its
// --role, --tool-call-id, --name and --is-error flags, validated; nil when
// there are no contents, and then the flags must not be set.
func Message(contents []string, role, toolCallID, name string, isError bool) (*transcript.Record, error) {
	if len(contents) == 0 {
		if role != "user" || toolCallID != "" || name != "" || isError {
			return nil, exitcode.Usagef("--role, --tool-call-id, --name and --is-error build a message from TEXT arguments; none given")
		}
		return nil, nil
	}
	if !transcript.Role(role).Valid() {
		return nil, exitcode.Usagef("--role %q: want system, user, assistant, tool or summary", role)
	}
	r := transcript.Record{Message: transcript.Message{
		Role: transcript.Role(role), Contents: contents, ToolCallID: toolCallID, Name: name, IsError: isError,
	}}
	if err := transcript.Validate(&r); err != nil {
		return nil, &exitcode.UsageError{Err: err}
	}
	return &r, nil
}
