package ask

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

func answerRecord(contents ...string) *transcript.Record {
	r := &transcript.Record{}
	r.Message.Role = transcript.RoleAssistant
	r.Message.Contents = contents
	r.Message.ToolCalls = []transcript.ToolCall{{ID: "c1", Name: "get", Arguments: `{"q":1}`}}
	return r
}

func TestPrinterText(t *testing.T) {
	var out, errOut bytes.Buffer
	var notes []string
	p := &Printer{Out: &out, ErrOut: &errOut, Warn: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }}
	if err := p.Answer(answerRecord("one", "two")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "one\n\ntwo\n" || errOut.Len() != 0 {
		t.Errorf("out %q, errOut %q", out.String(), errOut.String())
	}
	if len(notes) != 1 || notes[0] != `tool call c1: get {"q":1}` {
		t.Errorf("notes %q", notes)
	}
}

func TestPrinterStreamed(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out, Warn: func(string, ...any) {}}
	p.Text("one")
	p.Text(" two")
	p.EndText() // the line ended
	if err := p.Answer(answerRecord("one two")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "one two\n" { // streamed: not printed again
		t.Errorf("out %q", out.String())
	}
	// Nothing streamed: EndText adds nothing.
	out.Reset()
	(&Printer{Out: &out}).EndText()
	if out.Len() != 0 {
		t.Errorf("EndText without text wrote %q", out.String())
	}
}

func TestPrinterJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	p := &Printer{Out: &out, ErrOut: &errOut, JSON: true, Warn: func(string, ...any) {}}
	p.Text("hi")
	p.EndText()
	if err := p.Answer(answerRecord("hi")); err != nil {
		t.Fatal(err)
	}
	if errOut.String() != "hi\n" || !strings.HasPrefix(out.String(), "{") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("out %q, errOut %q", out.String(), errOut.String())
	}
	out.Reset()
	if err := (&Printer{Out: &out, JSON: true, Quiet: true}).Answer(answerRecord("hi")); err != nil || out.Len() != 0 {
		t.Errorf("quiet: %v, %q", err, out.String())
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) { w.n++; return 0, errors.New("closed") }

// The first failure to print is kept, and the stored answer is still
// printed after it (nothing more is written once the reader went away).
func TestPrinterKeepsFirstFailure(t *testing.T) {
	w := &failWriter{}
	p := &Printer{Out: w, Warn: func(string, ...any) {}}
	p.Text("partial")
	p.EndText()
	if err := p.Answer(answerRecord("partial")); err == nil || err.Error() != "closed" {
		t.Errorf("Answer = %v, want the streamed text's failure", err)
	}
	if w.n != 1 {
		t.Errorf("%d writes, want 1", w.n)
	}
}
