package main

// Process tests that read a pipe's unread byte count, which only Linux
// tells (FIONREAD).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
}
