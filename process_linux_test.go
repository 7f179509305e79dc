package main

// Process tests that read a pipe's unread byte count, which only Linux
// tells (FIONREAD).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestConcurrentSlowProducer: an append whose stdin pauses holds no write
// lock, so another process appends meanwhile; both are stored.
func TestConcurrentSlowProducer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	slow := convoCmd(t, db, "append", "-q", "-c", "slow")
	in, err := slow.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var slowOut strings.Builder
	slow.Stdout, slow.Stderr = &slowOut, &slowOut
	if err := slow.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(in, `{"role":"user","content":"first half"}`)
	// The producer pauses once convo has read that line (an append that
	// reads inside its transaction holds the write lock by then): before
	// staging, the other writer waited for the lock until SQLITE_BUSY.
	waitDrained(t, in.(*os.File))
	if out, err := convoCmd(t, db, "append", "-q", "-c", "other", "meanwhile").CombinedOutput(); err != nil {
		t.Fatalf("an append while another waits on its stdin: %v: %s", err, out)
	}
	fmt.Fprintln(in, `{"role":"assistant","content":"second half"}`)
	in.Close()
	if err := slow.Wait(); err != nil {
		t.Fatalf("the slow append: %v: %s", err, slowOut.String())
	}
	if n := strings.Count(strings.TrimSpace(dump(t, db, "slow")), "\n") + 1; n != 2 {
		t.Errorf("slow conversation holds %d records, want 2", n)
	}
	if n := strings.Count(strings.TrimSpace(dump(t, db, "other")), "\n") + 1; n != 1 {
		t.Errorf("other conversation holds %d records, want 1", n)
	}
}

// waitDrained returns once the reader of pipe w has read all written to it.
func waitDrained(t *testing.T, w *os.File) {
	t.Helper()
	for range 1000 {
		n, err := unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ) // FIONREAD
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the reader never read its stdin")
}

// TestCommittedOutputLost: an append whose stdout is a pipe with no reader
// left, or a full disk, stores the record once and exits 0, saying on
// stderr that the output was not delivered; it is not killed by SIGPIPE.
// A read whose output is lost exits 141, as a death by SIGPIPE would.
func TestCommittedOutputLost(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	closedPipe := func() *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		t.Cleanup(func() { w.Close() })
		return w
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	for _, out := range []*os.File{closedPipe(), full} {
		c := convoCmd(t, db, "append", "-c", "x", "hi")
		var stderr strings.Builder
		c.Stdout, c.Stderr = out, &stderr
		if err := c.Run(); err != nil || !strings.Contains(stderr.String(), "output was not delivered") {
			t.Errorf("append with stdout %s: %v, stderr %q; want exit 0 and a note", out.Name(), err, stderr.String())
		}
	}
	if got := dump(t, db, "x"); strings.Count(got, "\n") != 1 || !strings.Contains(got, `"contents":["hi","hi"]`) {
		t.Errorf("stored %s; want the two appends, each once, merged", got)
	}
	c := convoCmd(t, db, "get", "-c", "x")
	c.Stdout = closedPipe()
	if err := c.Run(); c.ProcessState.ExitCode() != 141 {
		t.Errorf("get with a closed stdout: %v, want exit 141", err)
	}
	// fork and clear report on stderr only: its reader gone, they still
	// exit 0 (SIGPIPE on stderr killed them after the commit).
	for _, args := range [][]string{{"fork", "-c", "x", "--to", "y"}, {"clear", "-c", "y", "--yes"}} {
		c := convoCmd(t, db, args...)
		c.Stderr = closedPipe()
		if err := c.Run(); err != nil {
			t.Errorf("%v with a closed stderr: %v, want exit 0", args, err)
		}
	}
	if out, err := convoCmd(t, db, "get", "-c", "y").CombinedOutput(); err == nil {
		t.Errorf("y still stored after clear: %s", out)
	}
}

// tripLines is a conversation with turns enough to summarize.
const tripLines = `{"role":"user","content":"I want to visit Lisbon in May. My budget is 900 EUR."}
{"role":"assistant","content":"Lisbon in May is mild. Flights from Berlin start at 120 EUR."}
{"role":"user","content":"Please always book window seats. Use order #4512 for the flight."}
{"role":"assistant","content":"Noted: window seats, order #4512."}
{"role":"user","content":"Book the 9 May 2026 flight."}
{"role":"assistant","content":"Thanks, booked the 9 May 2026 flight at 08:40."}
`

// seedConv stores tripLines as conv.
func seedConv(t *testing.T, db, conv string) {
	t.Helper()
	c := convoCmd(t, db, "append", "-q", "-c", conv)
	c.Stdin = strings.NewReader(tripLines)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

// waitExit waits for c to end, and fails the test if it never does.
func waitExit(t *testing.T, c *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang, not a slow machine
		c.Process.Kill()
		<-done
		t.Fatalf("%v did not exit after the signal", c.Args)
	}
}

// waitFile returns the content of path once it exists.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	for range 6000 {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

// processGone reports whether pid has exited (a zombie nobody reaps
// counts: it runs nothing).
func processGone(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X")
}

// waitGone fails the test unless pid exits.
func waitGone(t *testing.T, pid string) {
	t.Helper()
	for range 6000 {
		if processGone(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(atoi(t, pid), syscall.SIGKILL)
	t.Fatalf("the exec summarizer's command (pid %s) outlived convo", pid)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// blockingSummarizer is an exec summarizer whose calls answer until the
// n-th, which records its pid in child.pid and sleeps until killed.
func blockingSummarizer(n int) string {
	return fmt.Sprintf(`cat >/dev/null; i=$(($(cat count 2>/dev/null || echo 0) + 1)); echo $i > count
if [ $i -ge %d ]; then echo $$ > child.pid; exec sleep 600; fi
echo "Summary number $i of the trip to Lisbon."`, n)
}

// TestInterruptSummarizeAll: Ctrl-C during summarize --all exits 130, says
// how many summaries it stored (each conversation whole or untouched), and
// the exec summarizer's command dies with the run.
func TestInterruptSummarizeAll(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	for _, conv := range []string{"a", "b", "c", "d"} {
		seedConv(t, db, conv)
	}
	c := convoCmd(t, db, "summarize", "--all", "-j", "1", "--keep-last", "1", "--summarizer", "exec", "--exec", blockingSummarizer(3))
	c.Dir = dir
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitFile(t, filepath.Join(dir, "child.pid"))
	c.Process.Signal(syscall.SIGINT)
	waitExit(t, c)
	if code := c.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130; stderr %s", code, stderr.String())
	}
	stored := 0
	for _, conv := range []string{"a", "b", "c", "d"} {
		stored += strings.Count(dump(t, db, conv), `"role":"summary"`)
	}
	if want := fmt.Sprintf("convo: interrupted; %d summaries were stored", stored); stored == 0 || !strings.Contains(stderr.String(), want) {
		t.Errorf("%d summaries stored; stderr %q, want %q", stored, stderr.String(), want)
	}
	waitGone(t, pid)
}

// TestExecChildDiesWithConvo: a convo killed outright (SIGKILL, no time to
// clean up) takes the exec summarizer's command with it.
func TestExecChildDiesWithConvo(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	seedConv(t, db, "a")
	c := convoCmd(t, db, "summarize", "-c", "a", "--keep-last", "1", "--summarizer", "exec", "--exec", blockingSummarizer(1))
	c.Dir = dir
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitFile(t, filepath.Join(dir, "child.pid"))
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	waitGone(t, pid)
}

// TestInterruptBlockedWrite: SIGINT reaches a convo blocked writing to a
// pipe nobody reads: it exits 130 all the same.
func TestInterruptBlockedWrite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	var lines strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&lines, `{"role":%q,"content":"line %d of a conversation long enough to fill the pipe"}`+"\n", []string{"user", "assistant"}[i%2], i)
	}
	c := convoCmd(t, db, "append", "-q", "-c", "big")
	c.Stdin = strings.NewReader(lines.String())
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c = convoCmd(t, db, "get", "-c", "big")
	c.Stdout = w
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// The pipe is full once its unread bytes stop growing.
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
	c.Process.Signal(syscall.SIGINT)
	waitExit(t, c)
	if code := c.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
}

// TestTerminateBlockedRead: SIGTERM reaches an append waiting on a stdin
// nobody writes: exit 143, nothing stored.
func TestTerminateBlockedRead(t *testing.T) {
	db := filepath.Join(t.TempDir(), "convo.db")
	c := convoCmd(t, db, "append", "-c", "waiting")
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	fmt.Fprintln(in, `{"role":"user","content":"first"}`)
	waitDrained(t, in.(*os.File))
	c.Process.Signal(syscall.SIGTERM)
	waitExit(t, c)
	if code := c.ProcessState.ExitCode(); code != 143 || !strings.Contains(stderr.String(), "convo: terminated") {
		t.Errorf("exit %d, stderr %q; want 143 and a note", code, stderr.String())
	}
	if out, err := convoCmd(t, db, "get", "-c", "waiting").CombinedOutput(); err == nil {
		t.Errorf("stored after SIGTERM: %s", out)
	}
}
