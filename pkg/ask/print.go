package ask

import (
	"errors"
	"io"
	"strings"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Printer prints a turn's answer: its text as it streams in (Text, given
// as Turn.OnText) or once stored, or with JSON its record; the tool calls
// it makes are noted through Warn. A reader that goes away while the
// answer streams does not stop it being stored (the answer is paid for):
// the Printer keeps the first failure to print, and Answer returns it.
type Printer struct {
	Out    io.Writer // the answer's text, or with JSON its record
	ErrOut io.Writer // with JSON, where streamed text goes: stdout is the record's
	JSON   bool
	Quiet  bool // with JSON, no record printed
	Warn   func(format string, args ...any)

	streamed bool
	last     byte // the last byte of streamed text
	err      error
}

// textOut is where the answer's streamed text goes.
func (p *Printer) textOut() io.Writer {
	if p.JSON {
		return p.ErrOut
	}
	return p.Out
}

// Text prints a piece of the answer's text as it arrives.
func (p *Printer) Text(text string) {
	p.streamed, p.last = true, text[len(text)-1]
	if _, err := io.WriteString(p.textOut(), text); p.err == nil {
		p.err = err
	}
}

// EndText ends streamed text that did not end its line, stored or not.
func (p *Printer) EndText() {
	if p.streamed && p.last != '\n' && p.err == nil {
		_, p.err = io.WriteString(p.textOut(), "\n")
	}
}

// Answer prints the stored answer's text (unless it streamed) or, with
// JSON, its record, and notes its tool calls. It returns the first
// failure to print, the streamed text's included.
func (p *Printer) Answer(ans *transcript.Record) error {
	if err := p.answer(ans); p.err == nil {
		p.err = err
	}
	return p.err
}

func (p *Printer) answer(ans *transcript.Record) error {
	if p.JSON {
		if p.Quiet {
			return nil
		}
		enc := transcript.NewEncoder(p.Out)
		return errors.Join(enc.Encode(ans), enc.Flush())
	}
	if text := strings.Join(ans.Message.Contents, "\n\n"); text != "" && !p.streamed {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if _, err := io.WriteString(p.Out, text); err != nil {
			return err
		}
	}
	for _, c := range ans.Message.ToolCalls {
		p.Warn("tool call %s: %s %s", c.ID, c.Name, c.Arguments)
	}
	return nil
}
