package cmd

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/iostreams"
)

// cancelOnWrite is a stdout that a SIGTERM reaches with its first write:
// the signal comes after the commit, while the records are printed.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelCauseFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel(&signals.Cause{Sig: syscall.SIGTERM})
	return w.Buffer.Write(p)
}

// TestSignalAfterCommit: a SIGTERM that arrives once append has committed
// its 2,000 records exits 0 and says they were stored, never "nothing was
// written": a script retrying on that would store them twice.
func TestSignalAfterCommit(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	db := filepath.Join(t.TempDir(), "convo.db")
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, `{"role":%q,"content":"line %d"}`+"\n", []string{"user", "assistant"}[i%2], i)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	io, _, errOut := iostreams.Test(in.String())
	out := &cancelOnWrite{cancel: cancel}
	io.Out = out
	code := Run(ctx, []string{"--db", db, "append", "-c", "x"}, io)
	if code != exitcode.OK || !strings.HasPrefix(errOut.String(), "convo: terminated after storing 2000 records") {
		t.Errorf("exit %d, stderr %q; want 0 and %q", code, errOut, "convo: terminated after storing 2000 records")
	}
	io, got, _ := iostreams.Test("")
	if Run(context.Background(), []string{"--db", db, "get", "-c", "x"}, io) != exitcode.OK || strings.Count(got.String(), "\n") != 2000 {
		t.Errorf("stored %d records, want 2000", strings.Count(got.String(), "\n"))
	}
}
