package main

import (
	"bufio"
	"context"
	"encoding/json"
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

// TestSummarizeLongConversation: a conversation that grew to 40,000 records
// before its first summary is summarized in one run: the covered ids are
// compared in one bounded query, not one SQL variable each.
func TestSummarizeLongConversation(t *testing.T) {
	if testing.Short() {
		t.Skip("appends and summarizes 40,000 records")
	}
	db := filepath.Join(t.TempDir(), "convo.db")
	var in strings.Builder
	for i := range 40_000 {
		fmt.Fprintf(&in, `{"role":%q,"content":"turn %d: the order ships on Friday"}`+"\n", []string{"user", "assistant"}[i%2], i)
	}
	c := convoCmd(t, db, "append", "-q", "-c", "long")
	c.Stdin = strings.NewReader(in.String())
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	out, err := convoCmd(t, db, "summarize", "-c", "long", "--keep-last", "1").Output()
	if err != nil {
		t.Fatalf("summarize: %v", err)
	}
	var sum struct {
		Metadata struct {
			SummaryIDs []string `json:"summaryIds"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	if n := len(sum.Metadata.SummaryIDs); n != 40_000-2 {
		t.Fatalf("the summary covers %d records, want %d", n, 40_000-2)
	}
}

// TestKillExportToFile: export --to file:// killed with SIGKILL at any
// point leaves a file whose every line parses once the next export ran (a
// torn last line is never glued to a new record), and the records the
// killed run did not commit are sent again.
func TestKillExportToFile(t *testing.T) {
	if testing.Short() {
		t.Skip("exports 20,000 records ten times")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "convo.db")
	var in strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&in, `{"role":%q,"content":"record %d %s"}`+"\n", []string{"user", "assistant"}[i%2], i, strings.Repeat("x", 200))
	}
	c := convoCmd(t, db, "append", "-q", "-c", "e")
	c.Stdin = strings.NewReader(in.String())
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	log := filepath.Join(dir, "log.jsonl")
	for kill := range 10 {
		c := convoCmd(t, db, "export", "--all", "--incremental", "--to", "file://"+log)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a different point each time: once the file has grown by
		// some amount, or at once.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if fi, err := os.Stat(log); err == nil && fi.Size() > int64(kill)*300_000 {
				break
			}
		}
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
	}
	if out, err := convoCmd(t, db, "export", "--all", "--incremental", "--to", "file://"+log).CombinedOutput(); err != nil {
		t.Fatalf("final export: %v: %s", err, out)
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var rec struct{ ID string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			// Only a torn line of a killed run may fail, and it must stand alone.
			if !strings.HasPrefix(sc.Text(), "{") || strings.Count(sc.Text(), `{"id"`) > 1 {
				t.Fatalf("line %d glues records together: %.120s", n, sc.Text())
			}
			continue
		}
		seen[rec.ID] = true
	}
	if len(seen) != 20_000 {
		t.Fatalf("%d distinct records in the file, want all 20,000", len(seen))
	}
}
