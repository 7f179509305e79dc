package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store/sqlite"
)

// These tests run the real binary (testscript.Main put it on PATH as convo)
// as separate processes against one store file.

func convoCmd(t *testing.T, db string, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command("convo", args...)
	c.Env = append(os.Environ(), "CONVO_DB="+db, "XDG_CONFIG_HOME="+t.TempDir())
	return c
}

// TestConcurrentProcesses: 8 processes append 1,000 messages each (in 40
// invocations of 25 lines), half into one shared conversation with both
// roles. Every content string is stored exactly once and no process fails,
// SQLITE_BUSY included.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 320 processes")
	}
	db := filepath.Join(t.TempDir(), "convo.db")
	const procs, batches, per = 8, 40, 25
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conv := fmt.Sprintf("own-%d", p)
			if p%2 == 0 {
				conv = "shared"
			}
			for b := range batches {
				var in strings.Builder
				for i := range per {
					n := b*per + i
					fmt.Fprintf(&in, `{"role":%q,"content":"p%d-m%d"}`+"\n", []string{"user", "assistant"}[n%2], p, n)
				}
				c := convoCmd(t, db, "append", "-q", "-c", conv)
				c.Stdin = strings.NewReader(in.String())
				if out, err := c.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("process %d batch %d: %v: %s", p, b, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, conv := range []string{"shared", "own-1", "own-3", "own-5", "own-7"} {
		out, err := convoCmd(t, db, "get", "-c", conv).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			start := strings.Index(line, `"contents":[`) + len(`"contents":[`)
			end := strings.Index(line[start:], "]")
			for _, s := range strings.Split(line[start:start+end], ",") {
				seen[strings.Trim(s, `"`)]++
			}
		}
	}
	for p := range procs {
		for n := range batches * per {
			if k := fmt.Sprintf("p%d-m%d", p, n); seen[k] != 1 {
				t.Fatalf("%s stored %d times", k, seen[k])
			}
		}
	}
}

// TestKillMidAppend: a process killed with SIGKILL in the middle of a
// 100,000-line append leaves a store that passes integrity_check and holds
// all of that batch or none of it.
func TestKillMidAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("appends 100,000 lines")
	}
	db := filepath.Join(t.TempDir(), "convo.db")
	if out, err := convoCmd(t, db, "append", "-c", "big", "before").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	const lines = 100_000
	for _, killAfter := range []int{lines / 2, lines} {
		c := convoCmd(t, db, "append", "-q", "-c", "big")
		stdin, err := c.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(stdin)
		for i := range killAfter {
			fmt.Fprintf(w, `{"role":%q,"content":"line %d"}`+"\n", []string{"assistant", "user"}[i%2], i)
		}
		w.Flush()
		if killAfter == lines {
			// The whole batch is written: let the process reach its commit,
			// or die in it, then kill it.
			stdin.Close()
			time.Sleep(50 * time.Millisecond)
		}
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()

		s, err := sqlite.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.IntegrityCheck(context.Background()); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.DB().QueryRow(`SELECT count(*) FROM records WHERE conversation = 'big'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if n != 1 && n != 1+lines {
			t.Fatalf("kill after %d lines: %d records stored, want 1 or %d", killAfter, n, 1+lines)
		}
		t.Logf("killed after writing %d lines: %d records stored", killAfter, n)
		if n != 1 {
			break
		}
	}
}
