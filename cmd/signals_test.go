package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/iostreams"
)

// cancelOnWrite is a stdout that a SIGTERM reaches with its first write:
// the signal comes after the commit, while the records are printed.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelCauseFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel(&signalCause{syscall.SIGTERM})
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
	if code != ExitOK || !strings.HasPrefix(errOut.String(), "convo: terminated after storing 2000 records") {
		t.Errorf("exit %d, stderr %q; want 0 and %q", code, errOut, "convo: terminated after storing 2000 records")
	}
	io, got, _ := iostreams.Test("")
	if Run(context.Background(), []string{"--db", db, "get", "-c", "x"}, io) != ExitOK || strings.Count(got.String(), "\n") != 2000 {
		t.Errorf("stored %d records, want 2000", strings.Count(got.String(), "\n"))
	}
}

// TestForcedExit: convo exiting without waiting for the command (a
// second signal) runs the command's exit hooks, a stuck one for a bounded
// time, and says what was stored: exit 0 after a commit, 128 + the
// signal's number, saying which conversations stand, after part of a
// --all run, and without a word of what was written otherwise.
func TestForcedExit(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	for _, tc := range []struct {
		note    func(context.Context)
		code    int
		message string
	}{
		{func(context.Context) {}, 143, "convo: terminated; stopped without waiting for the command to finish\n"},
		{func(ctx context.Context) { noteStored(ctx, "storing %s", plural(2000, "record")) }, 0,
			"convo: terminated after storing 2000 records; its output was cut short\n"},
		{func(ctx context.Context) { notePartial(ctx, "3 summaries were stored before that") }, 143,
			"convo: terminated; 3 summaries were stored before that (stopped without waiting for the command to finish)\n"},
	} {
		ctx, st := withRunState(context.Background())
		tc.note(ctx)
		var mu sync.Mutex
		ran := map[string]bool{}
		hook := func(name string) func(context.Context) {
			return func(context.Context) { mu.Lock(); ran[name] = true; mu.Unlock() }
		}
		atForcedExit(ctx, hook("release claims"))
		atForcedExit(ctx, func(context.Context) { <-stuck }) // a lock nobody gives back
		atForcedExit(ctx, hook("unregistered"))()
		var errOut bytes.Buffer
		if code := st.forcedExit(&errOut, syscall.SIGTERM); code != tc.code || errOut.String() != tc.message {
			t.Errorf("exit %d, stderr %q; want %d, %q", code, errOut.String(), tc.code, tc.message)
		}
		mu.Lock()
		if !ran["release claims"] || ran["unregistered"] {
			t.Errorf("hooks run: %v; want the registered one only", ran)
		}
		mu.Unlock()
	}
}

// TestIgnoredSignalStaysIgnored: a SIGHUP convo was started ignoring
// (nohup) does not stop it; the SIGTERM sent after it does.
func TestIgnoredSignalStaysIgnored(t *testing.T) {
	signal.Ignore(syscall.SIGHUP)
	defer func() {
		// Reset leaves the signal marked ignored; Notify clears the mark.
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGHUP)
		signal.Stop(c)
	}()
	ctx, stop := onInterrupt(&bytes.Buffer{})
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitDone(t, ctx)
	if sc, ok := context.Cause(ctx).(*signalCause); !ok || sc.sig != syscall.SIGTERM {
		t.Errorf("stopped by %v, want SIGTERM", context.Cause(ctx))
	}
}

// TestHangupStops: SIGHUP (the terminal closed) stops a command as
// SIGTERM does: exit 129, nothing written.
func TestHangupStops(t *testing.T) {
	ctx, stop := onInterrupt(&bytes.Buffer{})
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	waitDone(t, ctx)
	err := interrupted(ctx, context.Cause(ctx))
	if sc, ok := context.Cause(ctx).(*signalCause); !ok || sc.sig != syscall.SIGHUP || exitCode(err) != 129 {
		t.Errorf("cause %v, exit %d; want SIGHUP and 129", context.Cause(ctx), exitCode(err))
	}
}

// waitDone waits for ctx to end, failing the test if it never does.
func waitDone(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a hang, not a slow machine
		t.Fatal("the signal never reached the command's context")
	}
}
