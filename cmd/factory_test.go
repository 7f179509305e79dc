package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/transcript"
	"github.com/spf13/cobra"
)

// testFactory returns a Factory over buffer streams, a fixed clock and a
// fresh SQLite store in t.TempDir, closed when the test ends.
func testFactory(t *testing.T, stdin string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	io, out, errOut := iostreams.Test(stdin)
	f := &Factory{
		IO:  io,
		Now: func() time.Time { return time.UnixMilli(1744815823058) },
		IDs: transcript.NewIDs(),
		// newRootCmd keeps db as --db's default, so no test reaches the
		// user's own store.
		db: filepath.Join(t.TempDir(), "convo.db"),
	}
	t.Cleanup(func() {
		if err := f.close(); err != nil {
			t.Error(err)
		}
	})
	return f, out, errOut
}

// runCmd runs one command built by newCmd with args, as Run would, and
// returns its error.
func runCmd(t *testing.T, f *Factory, args ...string) error {
	t.Helper()
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	return root.ExecuteContext(context.Background())
}

// parseFlags builds a command with newCmd and runs args through it with a
// runF that keeps the options: what the command's xRun would get, or the
// error of the flags.
func parseFlags[O any](t *testing.T, f *Factory, newCmd func(*Factory, func(context.Context, *O) error) *cobra.Command, args ...string) (*O, error) {
	t.Helper()
	var got *O
	cmd := newCmd(f, func(_ context.Context, o *O) error {
		got = o
		return nil
	})
	cmd.SetArgs(args)
	cmd.SetFlagErrorFunc(flagError) // the root's, which Run's commands inherit
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	err := cmd.Execute()
	if err == nil && got == nil {
		t.Fatal("runF not called")
	}
	return got, err
}
