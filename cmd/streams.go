package cmd

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the command's standard streams. Commands never touch os.Std*
// directly, so tests can hand them buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
}

// System returns the process's own streams.
func System() *IOStreams {
	isTTY := func(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY: isTTY(os.Stdin), stdoutTTY: isTTY(os.Stdout), stderrTTY: isTTY(os.Stderr),
	}
}

// Test returns streams over buffers, none a terminal.
func Test(stdin string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: bytes.NewBufferString(stdin), Out: out, ErrOut: errOut}, out, errOut
}

// StdinIsTerminal reports whether stdin is a person at a keyboard rather
// than a pipe or file.
func (s *IOStreams) StdinIsTerminal() bool { return s.stdinTTY }

// StderrIsTerminal reports whether progress may be drawn on stderr.
func (s *IOStreams) StderrIsTerminal() bool { return s.stderrTTY }
