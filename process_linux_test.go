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
