package summarize

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/summarize/extractive"
	"github.com/convo-cli/convo/pkg/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden summaries in testdata/golden")

// TestSummaryGolden: the default summary of three small conversations (a
// support chat, a personal chat with named speakers, a coding agent's
// session with tool calls), byte for byte. A change to what a summary
// reads like shows here first; run with -update to accept it.
func TestSummaryGolden(t *testing.T) {
	msg := func(role transcript.Role, text string) transcript.Message {
		return transcript.Message{Role: role, Contents: []string{text}}
	}
	call := func(id, name, args string) transcript.Message {
		return transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: id, Name: name, Arguments: args}}}
	}
	result := func(id, name, text string) transcript.Message {
		return transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Name: name, Contents: []string{text}}
	}
	convs := map[string][]transcript.Message{
		"support": {
			msg("user", "Hi, my parcel never arrived. The order is ORD-55821 and the courier reference is AZ-7781-XQ."),
			msg("assistant", "Sorry to hear that. I opened incident INC-2291-B and asked the courier for a trace."),
			msg("user", "Please always reply in English and cc billing@acme.example. I need the refund of $1,249.99 to DE89 3704 0044 0532 0130 00."),
			msg("assistant", "Understood. The refund of $1,249.99 is approved; it reaches your account within 5 business days."),
			msg("user", "Great. Also the desktop app v2.14.3-rc1 crashes on start, the log is at /var/log/acme/agent.log."),
			msg("assistant", "Thanks. Please reinstall from https://downloads.acme.example/desktop/2.14?channel=stable and tell me if it still crashes."),
			msg("user", "It works now, thank you!"),
			msg("assistant", "Glad to hear it. Anything else?"),
		},
		"personal": {
			msg("user", "Caroline: I went to the LGBTQ support group yesterday and it was so powerful."),
			msg("assistant", "Melanie: That's amazing, Caroline! What did you talk about?"),
			msg("user", "Caroline: Transgender stories, and I'm thinking of a career in counseling. I started reading \"Becoming Nicole\" too."),
			msg("assistant", "Melanie: Love that. I took my kids to the museum last Friday; they saw dinosaur bones for the first time."),
			msg("user", "Caroline: Aww! I painted a sunrise over the lake last week, my first painting in 3 years."),
			msg("assistant", "Melanie: You should show it at the art fair in Boston in May."),
			msg("user", "Caroline: Maybe! How is pottery going?"),
			msg("assistant", "Melanie: Great, I made a bowl with a dog on it for my son's birthday."),
		},
		"agent": {
			msg("user", "The test TestParseHeader/empty_input fails on branch fix/header-parsing. Please fix it and never touch go.mod."),
			call("c1", "bash", `{"command":"go test -run TestParseHeader ./internal/header/"}`),
			result("c1", "bash", "--- FAIL: TestParseHeader/empty_input (0.00s)\n    header_test.go:41: got error \"unexpected EOF\", want nil\nFAIL\nFAIL\tgithub.com/acme/httpx/internal/header\t0.012s"),
			call("c2", "read_file", `{"path":"internal/header/parse.go"}`),
			result("c2", "read_file", "package header\n\nfunc parseHeader(b []byte) (Header, error) {\n\tif len(b) == 0 {\n\t\treturn Header{}, io.ErrUnexpectedEOF\n\t}\n\treturn decode(b)\n}\n"),
			msg("assistant", "The empty input returns io.ErrUnexpectedEOF in internal/header/parse.go; an empty header should parse to the zero Header."),
			call("c3", "edit_file", `{"path":"internal/header/parse.go","old":"return Header{}, io.ErrUnexpectedEOF","new":"return Header{}, nil"}`),
			result("c3", "edit_file", "ok"),
			call("c4", "bash", `{"command":"go test ./internal/header/"}`),
			result("c4", "bash", "ok  \tgithub.com/acme/httpx/internal/header\t0.010s"),
			msg("assistant", "Fixed in commit 3f9a2c1: the tests pass."),
			msg("user", "Thanks. Now open a PR."),
			msg("assistant", "Opened https://github.com/acme/httpx/pull/4130."),
		},
	}
	opt := defaultOptions(t)
	opt.KeepLast = 1
	for name, msgs := range convs {
		t.Run(name, func(t *testing.T) {
			app := transcript.NewAppender("c", nil, transcript.NewIDs(), func() int64 { return 1000 })
			var recs []transcript.Record
			for _, m := range msgs {
				for _, ch := range app.Append(transcript.Record{Message: m}) {
					recs = append(recs, ch.Record.Clone())
				}
			}
			p, skip, err := Prepare(recs, opt)
			if err != nil || p == nil {
				t.Fatalf("plan: skip %q err %v", skip, err)
			}
			ex := &extractive.Summarizer{Counter: opt.Counter}
			out, err := ex.Summarize(context.Background(), p.Input)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := p.Record(out, ex.Name(), "01JRZJ1675E4S7Y4ZD7RNWNXWB", 5000, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := sum.Message.Contents[0] + "\n"
			path := filepath.Join("testdata", "golden", name+".txt")
			golden.Check(t, path, []byte(got), *update)
		})
	}
}
