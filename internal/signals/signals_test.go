package signals

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
)

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
		{func(ctx context.Context) { NoteStored(ctx, "storing %d records", 2000) }, 0,
			"convo: terminated after storing 2000 records; its output was cut short\n"},
		{func(ctx context.Context) { NotePartial(ctx, "3 summaries were stored before that") }, 143,
			"convo: terminated; 3 summaries were stored before that (stopped without waiting for the command to finish)\n"},
	} {
		ctx, st := WithRunState(context.Background())
		tc.note(ctx)
		var mu sync.Mutex
		ran := map[string]bool{}
		hook := func(name string) func(context.Context) {
			return func(context.Context) { mu.Lock(); ran[name] = true; mu.Unlock() }
		}
		AtForcedExit(ctx, hook("release claims"))
		AtForcedExit(ctx, func(context.Context) { <-stuck }) // a lock nobody gives back
		AtForcedExit(ctx, hook("unregistered"))()
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
	ctx, stop := OnInterrupt(&bytes.Buffer{})
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	waitDone(t, ctx)
	if sc, ok := context.Cause(ctx).(*Cause); !ok || sc.Sig != syscall.SIGTERM {
		t.Errorf("stopped by %v, want SIGTERM", context.Cause(ctx))
	}
}

// TestHangupStops: SIGHUP (the terminal closed) stops a command as
// SIGTERM does: exit 129, nothing written.
func TestHangupStops(t *testing.T) {
	ctx, stop := OnInterrupt(&bytes.Buffer{})
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	waitDone(t, ctx)
	err := Interrupted(ctx, context.Cause(ctx))
	if sc, ok := context.Cause(ctx).(*Cause); !ok || sc.Sig != syscall.SIGHUP || exitcode.Of(err) != 129 {
		t.Errorf("cause %v, exit %d; want SIGHUP and 129", context.Cause(ctx), exitcode.Of(err))
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

// TestInterruptedSaysPartial: a command that commits piece by piece
// (import's chunks) and is stopped by a signal says what it stored, from
// NotePartial, also when its error does not: import said "nothing was
// written" after storing thousands of records. An error that says it
// itself (summarize --all's) is left as it is.
func TestInterruptedSaysPartial(t *testing.T) {
	for _, tt := range []struct {
		name string
		note string
		err  error
		want string
	}{
		{"nothing noted", "", context.Canceled, "interrupted; nothing was written"},
		{"chunks noted", "3200 records were stored before that", context.Canceled, "interrupted; 3200 records were stored before that"},
		{"error says it", "3200 records were stored before that", &exitcode.PartialError{Err: context.Canceled, Stored: "2 summaries"}, "interrupted; 2 summaries"},
	} {
		ctx, _ := WithRunState(context.Background())
		ctx, cancel := context.WithCancelCause(ctx)
		if tt.note != "" {
			NotePartial(ctx, "%s", tt.note)
		}
		cancel(&Cause{Sig: syscall.SIGINT})
		err := Interrupted(ctx, tt.err)
		if got := exitcode.Message(err); got != tt.want || exitcode.Of(err) != 130 {
			t.Errorf("%s: %q, exit %d; want %q, exit 130", tt.name, got, exitcode.Of(err), tt.want)
		}
	}
}
