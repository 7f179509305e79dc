// Package signals is what SIGINT, SIGTERM, SIGHUP and SIGPIPE do to a
// running command: its context ends with a Cause, it is given a grace to
// wind down, and what it noted as stored decides how it ends (see
// internal/exitcode).
package signals

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
)

// HandleSIGPIPE turns a write to a stdout nobody reads into an EPIPE error
// instead of death by SIGPIPE (Go's default for file descriptors 1 and 2):
// a command whose change committed must exit 0 and say that its output
// was lost (see exitcode.UndeliveredError), and one that stored nothing exits
// ExitBrokenPipe. Notify, not Ignore: an ignored signal stays ignored in
// the commands we start (the exec summarizer), a handled one does not.
func HandleSIGPIPE() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// interruptGrace is how long an interrupted command is given to wind down
// (roll back, kill the exec summarizer, say what it stored) before convo
// exits without it: a command blocked writing to a pipe nobody reads, or
// reading a stdin nobody writes, never notices its context.
const interruptGrace = 3 * time.Second

// Cause ends the command's context when a signal stops convo.
type Cause struct{ Sig syscall.Signal }

func (c *Cause) Error() string { return exitcode.SignalName(c.Sig) }

// stopSignals are the signals that stop a command: Ctrl-C, kill, and a
// closed terminal.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// keptIgnored reports a signal convo leaves alone when it was started
// ignoring it: SIGHUP under nohup, whose point is to outlive the
// terminal. (SIGINT and SIGTERM are always handled, as they always were:
// a script's kill -INT of a background convo, which its shell started
// with SIGINT ignored, still stops it.)
func keptIgnored(sig os.Signal) bool {
	return sig == syscall.SIGHUP && signal.Ignored(sig)
}

// OnInterrupt returns a context that SIGINT, SIGTERM or SIGHUP cancels,
// with a *Cause; a SIGHUP convo was started ignoring (nohup) stays
// ignored. Once cancelled, the command has interruptGrace to return;
// after that, or at a second signal, convo runs the command's exit hooks
// and exits without it (forcedExit). The store needs no winding down: an
// unfinished transaction is rolled back, as after a crash.
func OnInterrupt(errOut io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ctx, st := WithRunState(ctx)
	sigs := make(chan os.Signal, 2)
	for _, sig := range stopSignals {
		if !keptIgnored(sig) {
			signal.Notify(sigs, sig)
		}
	}
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		sig, _ := first.(syscall.Signal)
		cancel(&Cause{Sig: sig})
		timer := time.NewTimer(interruptGrace)
		select {
		case <-sigs:
		case <-timer.C:
		case <-done:
			return
		}
		os.Exit(st.forcedExit(errOut, sig))
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// Interrupted marks err as the end of a command that ctx's signal stopped;
// it leaves err alone when no signal came. A command whose change
// committed before the signal (NoteStored) ends as an exitcode.UndeliveredError
// saying what it stored, whether it failed after (its output cut short)
// or not: exit 0, never "nothing was written".
func Interrupted(ctx context.Context, err error) error {
	var sc *Cause
	if !errors.As(context.Cause(ctx), &sc) {
		return err
	}
	var de *exitcode.UndeliveredError
	if what, partial := stateOf(ctx).note(); what != "" && !partial {
		if errors.As(err, &de) {
			err = de.Err
		}
		return &exitcode.UndeliveredError{Err: err, Sig: sc.Sig, Stored: what}
	}
	if err == nil || errors.As(err, &de) {
		return err
	}
	// What a command committing piece by piece noted is said unless its
	// error says it already: import said "nothing was written" after
	// storing thousands of records.
	var pe *exitcode.PartialError
	if what, partial := stateOf(ctx).note(); what != "" && partial && !errors.As(err, &pe) {
		err = &exitcode.PartialError{Err: err, Stored: what}
	}
	return &exitcode.InterruptedError{Sig: sc.Sig, Err: err}
}

// runState is what the signal handler knows of the running command: what
// it stored, and what must be done before convo exits without it.
type runState struct {
	mu      sync.Mutex
	stored  string // "storing 2000 records"
	partial bool   // stored is part of the work (each conversation its own)
	hooks   map[int]func(context.Context)
	nextID  int
}

type runStateKey struct{}

// WithRunState gives ctx a runState, unless it has one.
func WithRunState(ctx context.Context) (context.Context, *runState) {
	if st := stateOf(ctx); st != nil {
		return ctx, st
	}
	st := &runState{}
	return context.WithValue(ctx, runStateKey{}, st), st
}

// stateOf is ctx's runState, or nil.
func stateOf(ctx context.Context) *runState {
	st, _ := ctx.Value(runStateKey{}).(*runState)
	return st
}

func (st *runState) note() (string, bool) {
	if st == nil {
		return "", false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.stored, st.partial
}

// NoteStored records that the command's change committed, as the phrase
// that follows "terminated after" ("storing 2000 records"): a signal from
// then on is exit 0, saying what was stored. Call it right after the
// commit.
func NoteStored(ctx context.Context, format string, args ...any) {
	if st := stateOf(ctx); st != nil {
		st.mu.Lock()
		st.stored, st.partial = fmt.Sprintf(format, args...), false
		st.mu.Unlock()
	}
}

// NotePartial records what a command that commits piece by piece
// (summarize --all) has stored so far, as the phrase that follows
// "interrupted; ": a signal still stops it with 128 + its number, saying
// that.
func NotePartial(ctx context.Context, format string, args ...any) {
	if st := stateOf(ctx); st != nil {
		st.mu.Lock()
		st.stored, st.partial = fmt.Sprintf(format, args...), true
		st.mu.Unlock()
	}
}

// exitHookGrace bounds the exit hooks of a forced exit, together.
const exitHookGrace = time.Second

// AtForcedExit registers fn to run if convo exits without waiting for the
// command (a second signal, or interruptGrace passed): what its deferred
// calls would have done, such as giving up claims. The function returned
// unregisters it.
func AtForcedExit(ctx context.Context, fn func(context.Context)) func() {
	st := stateOf(ctx)
	if st == nil {
		return func() {}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.hooks == nil {
		st.hooks = map[int]func(context.Context){}
	}
	id := st.nextID
	st.nextID++
	st.hooks[id] = fn
	return func() {
		st.mu.Lock()
		delete(st.hooks, id)
		st.mu.Unlock()
	}
}

// forcedExit runs the exit hooks, for exitHookGrace at most, says on
// errOut how the command ended, and returns convo's exit status: 0 when
// its change had committed, else 128 + the signal's number.
func (st *runState) forcedExit(errOut io.Writer, sig syscall.Signal) int {
	st.mu.Lock()
	hooks := make([]func(context.Context), 0, len(st.hooks))
	for _, h := range st.hooks {
		hooks = append(hooks, h)
	}
	st.mu.Unlock()
	if len(hooks) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), exitHookGrace)
		done := make(chan struct{})
		go func() {
			var wg sync.WaitGroup
			for _, h := range hooks {
				wg.Go(func() { h(ctx) })
			}
			wg.Wait()
			close(done)
		}()
		select { // a hook stuck on a lock is left behind
		case <-done:
		case <-ctx.Done():
		}
		cancel()
	}
	var err error = &exitcode.InterruptedError{Sig: sig, Err: exitcode.ErrStoppedWaiting}
	msg := exitcode.SignalName(sig) + "; " + exitcode.ErrStoppedWaiting.Error() // what it did, it had no time to say
	switch what, partial := st.note(); {
	case what != "" && partial:
		err = &exitcode.InterruptedError{Sig: sig, Err: &exitcode.PartialError{Err: exitcode.ErrStoppedWaiting, Stored: what}}
		msg = exitcode.Message(err)
	case what != "":
		err = &exitcode.UndeliveredError{Err: exitcode.ErrStoppedWaiting, Sig: sig, Stored: what}
		msg = exitcode.Message(err)
	}
	fmt.Fprintf(errOut, "convo: %s\n", msg)
	return exitcode.Of(err)
}
