package facts

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

func agentSpan() []transcript.Record {
	user := func(text string) transcript.Record {
		return transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{text}}}
	}
	call := func(id, name, args string) transcript.Record {
		return transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{{ID: id, Name: name, Arguments: args}}}}
	}
	result := func(id, name, text string, isErr bool) transcript.Record {
		return transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Name: name, Contents: []string{text}, IsError: isErr}}
	}
	return []transcript.Record{
		user("The test TestParse/empty fails.\nFix it and don't touch go.mod."),
		call("c1", "bash", `{"command":"go test ./internal/x/"}`),
		result("c1", "bash", "=== RUN   TestParse\n    x_test.go:41: got error \"EOF\", want nil\n--- FAIL: TestParse (0.00s)\n--- PASS: TestOther (0.00s)\nFAIL\nFAIL\tgithub.com/a/x\t0.01s\nexit status 1", false),
		call("c2", "read_file", `{"path":"internal/x/parse.go"}`),
		result("c2", "read_file", "package x\n\nfunc parseA() {}\nfunc parseB() {}\n", false),
		user("Also keep the old signature."),
		call("c3", "edit_file", `{"path":"internal/x/parse.go","old":"a","new":"b"}`),
		result("c3", "edit_file", "Error: old string not found in internal/x/parse.go", true),
		call("c4", "shell", `{"command":["bash","-lc","git commit -am fix"]}`),
		result("c4", "shell", "[main 3f9a2c1] fix\n 1 file changed", false),
		call("c5", "apply_patch", `{"input":"*** Begin Patch\n*** Update File: internal/x/x.go\n*** Add File: internal/x/y.go\n*** End Patch"}`),
		result("c5", "apply_patch", "Done", false),
		user("Thanks, that works."),
	}
}

// TestSections: the requests verbatim, each file with what was done, each
// command with its outcome, each error line with its call.
func TestSections(t *testing.T) {
	b := NewSectionBuilder(nil)
	for _, r := range agentSpan() {
		var errs []string
		if r.Message.Role == transcript.RoleTool {
			errs = ErrorLines(strings.Join(r.Message.Contents, "\n"), r.Message.IsError)
		}
		b.Add(&r, errs)
	}
	s, ok := b.Sections()
	if !ok {
		t.Fatal("no sections")
	}
	c, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	_, text := s.Fit(4000, c)
	want := "Requests (the user's, verbatim, first to latest):\n" +
		"- The test TestParse/empty fails.\n  Fix it and don't touch go.mod.\n" +
		"- Also keep the old signature.\n" +
		"- Thanks, that works.\n" +
		"Files:\n" +
		"- internal/x/parse.go: read, edited (failed)\n" +
		"- internal/x/x.go: edited\n" +
		"- internal/x/y.go: written\n" +
		"Commands:\n" +
		"- `go test ./internal/x/` → exit 1; 1 passed, 1 failed\n" +
		"- `git commit -am fix` → [main 3f9a2c1] fix\n" +
		"Errors:\n" +
		"- `go test ./internal/x/`: x_test.go:41: got error \"EOF\", want nil\n" +
		"- `go test ./internal/x/`: --- FAIL: TestParse (0.00s)\n" +
		"- `go test ./internal/x/`: FAIL\tgithub.com/a/x\t0.01s\n" +
		"- `edited internal/x/parse.go`: Error: old string not found in internal/x/parse.go"
	if text != want {
		t.Errorf("sections:\n%s\nwant\n%s", text, want)
	}
	if CutSections(text+"\n\nEarlier, notes") != "Earlier, notes" {
		t.Errorf("CutSections did not cut the sections")
	}
	if strings.Contains(text, "parseA") {
		t.Errorf("a file's body reached the sections")
	}

	// Carried: a second span adds to the first's, the first request stays.
	b = NewSectionBuilder(&s)
	more := []transcript.Record{{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Now the README."}}}}
	for _, r := range more {
		b.Add(&r, nil)
	}
	s2, _ := b.Sections()
	if s2.First != s.First || s2.Requests[len(s2.Requests)-1] != "Now the README." || len(s2.Files) != 3 {
		t.Errorf("carried sections: %+v", s2)
	}
}

// TestSectionsBounds: past their bounds the newest win and the drop is
// said; within a small budget the first and latest requests and the
// newest errors stay.
func TestSectionsBounds(t *testing.T) {
	c, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	b := NewSectionBuilder(nil)
	add := func(r transcript.Record, errs ...string) { b.Add(&r, errs) }
	add(transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"First request."}}})
	n := MaxErrors + 10
	for i := range n {
		id := fmt.Sprint("c", i)
		add(transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{
			{ID: id, Name: "bash", Arguments: fmt.Sprintf(`{"command":"make step%d"}`, i)}}}})
		add(transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Contents: []string{"x"}}}, fmt.Sprintf("error: step %d", i))
		add(transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant, ToolCalls: []transcript.ToolCall{
			{ID: id + "r", Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)}}}})
		add(transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: id + "r", Contents: []string{"package x"}}})
		add(transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{fmt.Sprintf("Request number %d, with a few more words to weigh.", i)}}})
	}
	s, _ := b.Sections()
	fit, text := s.Fit(4000, c)
	if len(fit.Files) != MaxFiles || len(fit.Commands) != MaxCommands || len(fit.Errors) != MaxErrors {
		t.Errorf("bounds: %d files, %d commands, %d errors", len(fit.Files), len(fit.Commands), len(fit.Errors))
	}
	if fit.FilesDropped != n-MaxFiles || fit.CommandsDropped != n-MaxCommands || fit.ErrorsDropped != n-MaxErrors {
		t.Errorf("dropped: %d files, %d commands, %d errors", fit.FilesDropped, fit.CommandsDropped, fit.ErrorsDropped)
	}
	if fit.Errors[MaxErrors-1].Line != fmt.Sprint("error: step ", n-1) || !strings.Contains(text, fmt.Sprintf("(%d left out)", n-MaxErrors)) {
		t.Errorf("the newest errors do not win:\n%s", text)
	}
	if n := c.Count(text); n > 4000/SectionsShare {
		t.Errorf("sections of %d tokens over half of 4000", n)
	}
	small, text := s.Fit(100, c)
	if small.First != "First request." || small.Requests[len(small.Requests)-1] != fmt.Sprintf("Request number %d, with a few more words to weigh.", n-1) ||
		len(small.Requests) != 1 || len(small.Errors) != ErrorsFloor || len(small.Commands) != 0 {
		t.Errorf("a small budget kept:\n%s", text)
	}
}

// TestSectionsFirstBeforeTools: a span without tool calls shows no
// sections but carries its first request, which the sections open with
// once the calls come.
func TestSectionsFirstBeforeTools(t *testing.T) {
	b := NewSectionBuilder(nil)
	for _, text := range []string{"Make the parser safe for concurrent use.", "And add a test."} {
		r := transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{text}}}
		b.Add(&r, nil)
	}
	s, shown := b.Sections()
	if shown || s.First != "Make the parser safe for concurrent use." || len(s.Requests) != 0 || s.Tools {
		t.Fatalf("a span without calls: shown %v, %+v", shown, s)
	}
	b = NewSectionBuilder(&s)
	for _, r := range agentSpan() {
		b.Add(&r, nil)
	}
	s, shown = b.Sections()
	if !shown || s.First != "Make the parser safe for concurrent use." || !s.Tools {
		t.Fatalf("after the calls: shown %v, %+v", shown, s)
	}
}

// TestSectionsDropMarksFirst: past the sections' share a runner's mark
// (--- FAIL) goes before a line that says what failed.
func TestSectionsDropMarksFirst(t *testing.T) {
	c, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	s := Sections{First: "Fix the tests.", Requests: []string{"Fix the tests."}}
	for i := range 6 {
		s.Errors = append(s.Errors, Error{From: "go test ./...", Line: fmt.Sprintf("--- FAIL: TestCase%d (0.00s)", i)},
			Error{From: "go test ./...", Line: fmt.Sprintf("case%d_test.go:%d: got %d, want %d", i, 10+i, i, i+1)})
	}
	fit, text := s.Fit(300, c)
	if fit.ErrorsDropped == 0 {
		t.Fatalf("nothing dropped within 300 tokens:\n%s", text)
	}
	for _, e := range fit.Errors {
		if strings.HasPrefix(e.Line, "--- FAIL") && len(fit.Errors) > ErrorsFloor && slices.ContainsFunc(fit.Errors, func(o Error) bool { return !strings.HasPrefix(o.Line, "--- FAIL") }) {
			for _, o := range s.Errors {
				if !strings.HasPrefix(o.Line, "--- FAIL") && !slices.Contains(fit.Errors, o) {
					t.Fatalf("a message went while a mark stayed:\n%s", text)
				}
			}
		}
	}
	if !slices.ContainsFunc(fit.Errors, func(e Error) bool { return e.Line == "case5_test.go:15: got 5, want 6" }) {
		t.Errorf("the newest message went:\n%s", text)
	}
}
