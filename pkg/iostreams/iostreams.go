// Package iostreams holds the standard streams a command reads and writes,
// with what is known of them (terminals, width, a pipe's delivery), so
// that tests can hand a command buffers.
package iostreams

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// IOStreams are the command's standard streams. Commands never touch os.Std*
// directly, so tests can hand them buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	// width, when set, is the terminal's width (tests); else it is asked
	// of stdout's terminal.
	width int
	// stdinFile: stdin is a regular file, which cannot stall the way a
	// pipe's producer can.
	stdinFile bool
	// outFile is Out as a file, when it is one: delivery to a pipe can
	// then be checked (see waitRead).
	outFile *os.File
}

// System returns the process's own streams.
func System() *IOStreams {
	isTTY := func(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY: isTTY(os.Stdin), stdoutTTY: isTTY(os.Stdout), stderrTTY: isTTY(os.Stderr),
		outFile: os.Stdout, stdinFile: isRegular(os.Stdin),
	}
}

// Test returns streams over buffers, none a terminal.
func Test(stdin string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: bytes.NewBufferString(stdin), Out: out, ErrOut: errOut}, out, errOut
}

// OutputError is a write to stdout that failed: its reader went away
// (EPIPE: SIGPIPE is handled, see cmd.Main) or it cannot take more (ENOSPC).
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// ErrUndelivered is an output its reader did not take whole, though no
// write failed: it read what was there and quit (see waitRead).
var ErrUndelivered = errors.New("the reader of stdout stopped before reading everything")

// stdoutWriter types the write errors of stdout, so that the exit code can
// tell a lost output from any other failure.
type stdoutWriter struct{ w io.Writer }

func (w stdoutWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		err = &OutputError{err}
	}
	return n, err
}

// TypedOut returns a copy of s whose Out types its write errors.
func (s *IOStreams) TypedOut() *IOStreams {
	c := *s
	c.Out = stdoutWriter{s.Out}
	return &c
}

// SetStdinTTY, SetStdoutTTY, SetStderrTTY, SetStdinFile and SetWidth say
// what the streams are, for tests: Test's buffers are no terminal.
func (s *IOStreams) SetStdinTTY(b bool)  { s.stdinTTY = b }
func (s *IOStreams) SetStdoutTTY(b bool) { s.stdoutTTY = b }
func (s *IOStreams) SetStderrTTY(b bool) { s.stderrTTY = b }
func (s *IOStreams) SetStdinFile(b bool) { s.stdinFile = b }
func (s *IOStreams) SetWidth(w int)      { s.width = w }

// StdinIsTerminal reports whether stdin is a person at a keyboard rather
// than a pipe or file.
func (s *IOStreams) StdinIsTerminal() bool { return s.stdinTTY }

// StdinIsFile reports whether stdin is a regular file: reading it never
// waits on a producer.
func (s *IOStreams) StdinIsFile() bool { return s.stdinFile }

func isRegular(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// StdoutIsTerminal reports whether stdout is a person's screen rather than
// a pipe or file: output may then be shaped for reading.
func (s *IOStreams) StdoutIsTerminal() bool { return s.stdoutTTY }

// StderrIsTerminal reports whether progress may be drawn on stderr.
func (s *IOStreams) StderrIsTerminal() bool { return s.stderrTTY }

// TerminalWidth is the width in columns of the terminal stdout is, 0 when
// stdout is no terminal or its size is unknown.
func (s *IOStreams) TerminalWidth() int {
	if s.width > 0 || !s.stdoutTTY || s.outFile == nil {
		return s.width
	}
	w, _, err := term.GetSize(int(s.outFile.Fd()))
	if err != nil || w <= 0 {
		return 0
	}
	return w
}

// OutRead returns once what was written to Out is known read: by the reader
// of a pipe, or at once for a file, a terminal or a buffer. An error says
// the reader stopped early.
func (s *IOStreams) OutRead(ctx context.Context) error {
	if s.outFile == nil {
		return nil
	}
	grace := defaultDeliveryGrace
	if d, err := time.ParseDuration(os.Getenv(envDeliveryGrace)); err == nil && d >= 0 {
		grace = d
	}
	return waitRead(ctx, s.outFile, grace)
}

// A reader that read everything is given this long to show it stopped
// early (see waitRead); CONVO_DELIVERY_GRACE (a Go duration) changes it,
// for tests on a loaded machine.
const (
	defaultDeliveryGrace = 200 * time.Millisecond
	envDeliveryGrace     = "CONVO_DELIVERY_GRACE"
)
