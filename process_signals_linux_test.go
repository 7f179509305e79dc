package main

// Issue 27 (Hardening II), items 6, 7 and 12: what a signal leaves behind.

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// grandchildSummarizer is an exec summarizer whose command starts a
// process of its own, records that one's pid in child.pid and waits for
// it: killing the shell alone orphans it.
const grandchildSummarizer = `cat >/dev/null; sleep 600 & echo $! > child.pid; wait`

// TestExecGrandchildDiesWithConvo: a convo killed outright (SIGKILL)
// takes with it the exec summarizer's command and what that started.
func TestExecGrandchildDiesWithConvo(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	seedConv(t, db, "a")
	c := convoCmd(t, db, "summarize", "-c", "a", "--keep-last", "1", "--summarizer", "exec", "--exec", grandchildSummarizer)
	c.Dir = dir
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitFile(t, filepath.Join(dir, "child.pid"))
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	waitGone(t, pid)
}

// hangupReachesChildren lets the convo these tests start be hung up when
// the tests run under nohup. An ignored SIGHUP stays ignored across exec,
// and convo keeps it ignored, as nohup asks. A signal this process
// handles is reset to its default across exec.
func hangupReachesChildren() {
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
}

// TestHangupStopsExec: SIGHUP (the terminal closed) stops summarize as
// SIGTERM does: exit 129 saying nothing was written, the exec command and
// its children killed.
func TestHangupStopsExec(t *testing.T) {
	hangupReachesChildren()
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	seedConv(t, db, "a")
	c := convoCmd(t, db, "summarize", "-c", "a", "--keep-last", "1", "--summarizer", "exec", "--exec", grandchildSummarizer)
	c.Dir = dir
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitFile(t, filepath.Join(dir, "child.pid"))
	c.Process.Signal(syscall.SIGHUP)
	waitExit(t, c)
	if code := c.ProcessState.ExitCode(); code != 129 || !strings.Contains(stderr.String(), "convo: hangup; nothing was written") {
		t.Errorf("exit %d, stderr %q; want 129 saying nothing was written", code, stderr.String())
	}
	waitGone(t, pid)
	if strings.Contains(dump(t, db, "a"), `"role":"summary"`) {
		t.Error("a summary was stored")
	}
}

// interruptAll starts summarize --all over conversations a to d with a
// summarizer that never answers, and once it has claims, stops it with
// sigs; it returns convo's stderr.
func interruptAll(t *testing.T, dir, db string, sigs ...syscall.Signal) string {
	t.Helper()
	for _, conv := range []string{"a", "b", "c", "d"} {
		seedConv(t, db, conv)
	}
	c := convoCmd(t, db, "summarize", "--all", "-j", "2", "--keep-last", "1", "--summarizer", "exec", "--exec", blockingSummarizer(1))
	c.Dir = dir
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(dir, "child.pid")) // a claim is held
	for _, sig := range sigs {
		c.Process.Signal(sig)
	}
	waitExit(t, c)
	return stderr.String()
}

// rerunAll runs summarize --all again with a summarizer that answers, and
// returns its stderr.
func rerunAll(t *testing.T, dir, db string) string {
	t.Helper()
	c := convoCmd(t, db, "summarize", "--all", "-j", "2", "--keep-last", "1", "--summarizer", "exec", "--exec", "cat >/dev/null; echo A summary of the trip to Lisbon.")
	c.Dir = dir
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("rerun: %v: %s", err, stderr.String())
	}
	return stderr.String()
}

// TestInterruptReleasesClaims: summarize --all stopped by Ctrl-C, by a
// second Ctrl-C that does not wait, by SIGTERM or by SIGHUP gives up its
// claims: a rerun right after summarizes every conversation, none held.
func TestInterruptReleasesClaims(t *testing.T) {
	hangupReachesChildren()
	for _, tc := range []struct {
		name string
		sigs []syscall.Signal
		code int
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}, 130},
		{"second SIGINT", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}, 130},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}, 143},
		{"SIGHUP", []syscall.Signal{syscall.SIGHUP}, 129},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "convo.db")
			stderr := interruptAll(t, dir, db, tc.sigs...)
			if !strings.Contains(stderr, "convo: "+map[int]string{130: "interrupted", 143: "terminated", 129: "hangup"}[tc.code]) {
				t.Errorf("stderr %q does not say how it stopped", stderr)
			}
			again := rerunAll(t, dir, db)
			if !strings.Contains(again, " 4 summarized,") || !strings.Contains(again, " 0 held by other runners") {
				t.Errorf("rerun after %s: %s; want all 4 summarized, none held", tc.name, again)
			}
		})
	}
}

// TestKilledRunnerClaimsLapse: the claims of a runner killed outright
// (SIGKILL) stand until their lease lapses, and the rerun's tally says
// how many it found held and until when.
func TestKilledRunnerClaimsLapse(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	interruptAll(t, dir, db, syscall.SIGKILL)
	again := rerunAll(t, dir, db)
	m := regexp.MustCompile(` (\d+) held by other runners \(their claims lapse by (\d\d:\d\d:\d\d) unless renewed\)`).FindStringSubmatch(again)
	if m == nil || m[1] == "0" {
		t.Fatalf("rerun after a SIGKILL: %s; want the held conversations and until when", again)
	}
	if _, err := time.Parse(time.TimeOnly, m[2]); err != nil {
		t.Errorf("held until %q: %v", m[2], err)
	}
}

// TestTerminateAfterCommit: a SIGTERM that reaches append once its 2,000
// records are committed, while it is blocked printing them to a pipe
// nobody reads, exits 0 saying they were stored, not 143: a script that
// retried would store them twice.
func TestTerminateAfterCommit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	var lines strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&lines, `{"role":%q,"content":"line %d of a conversation long enough to fill the pipe"}`+"\n", []string{"user", "assistant"}[i%2], i)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := convoCmd(t, db, "append", "-c", "big")
	c.Stdin = strings.NewReader(lines.String())
	c.Stdout = w
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// append prints only after its commit: a full pipe means committed.
	for last := -1; ; {
		time.Sleep(50 * time.Millisecond)
		n, err := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ)
		if err != nil {
			t.Fatal(err)
		}
		if n == last && n > 0 {
			break
		}
		last = n
	}
	c.Process.Signal(syscall.SIGTERM)
	waitExit(t, c)
	if code := c.ProcessState.ExitCode(); code != 0 || !strings.Contains(stderr.String(), "convo: terminated after storing 2000 records") {
		t.Errorf("exit %d, stderr %q; want 0 saying the 2000 records are stored", code, stderr.String())
	}
	if n := strings.Count(dump(t, db, "big"), "\n"); n != 2000 {
		t.Errorf("%d records stored, want 2000", n)
	}
}
