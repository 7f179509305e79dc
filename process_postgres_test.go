package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/pgtest"
	"github.com/convo-cli/convo/pkg/store/postgres"
	"github.com/convo-cli/convo/pkg/transcript"
)

// These run the real binary as separate processes against one PostgreSQL
// database, as a fleet of CI runners would. They skip without a server
// (CONVO_TEST_POSTGRES); CI always has one.

// TestConcurrentPostgresAppends: 8 processes append 500 messages each (20
// invocations of 25 lines, roles alternating) into ONE conversation. No
// process fails and every content string is stored exactly once, whatever
// merges the interleaving made.
func TestConcurrentPostgresAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 160 processes")
	}
	db := pgtest.Schema(t)
	const procs, batches, per = 8, 20, 25
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := range procs {
		wg.Go(func() {
			for b := range batches {
				var in strings.Builder
				for i := range per {
					n := b*per + i
					fmt.Fprintf(&in, `{"role":%q,"content":"p%d-m%d"}`+"\n", []string{"user", "assistant"}[n%2], p, n)
				}
				c := convoCmd(t, db, "append", "-q", "-c", "shared")
				c.Stdin = strings.NewReader(in.String())
				if out, err := c.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("process %d batch %d: %v: %s", p, b, err, out)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := storedContents(t, db, "shared")
	for p := range procs {
		for n := range batches * per {
			if k := fmt.Sprintf("p%d-m%d", p, n); seen[k] != 1 {
				t.Fatalf("%s stored %d times", k, seen[k])
			}
		}
	}
}

// storedContents counts each content string of conv as get prints it.
func storedContents(t *testing.T, db, conv string) map[string]int {
	t.Helper()
	out, err := convoCmd(t, db, "get", "-c", conv).Output()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		start := strings.Index(line, `"contents":[`) + len(`"contents":[`)
		end := strings.Index(line[start:], "]")
		for _, s := range strings.Split(line[start:start+end], ",") {
			seen[strings.Trim(s, `"`)]++
		}
	}
	return seen
}

// seedPostgres stores n conversations c-000... of turns records each, in
// process (the processes under test only summarize them).
func seedPostgres(t *testing.T, db string, n, turns int) []string {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids := transcript.NewIDs()
	var convs []string
	for c := range n {
		conv := fmt.Sprintf("c-%03d", c)
		convs = append(convs, conv)
		recs := make([]transcript.Record, turns)
		for j := range recs {
			i := j + 1
			recs[j] = transcript.Record{Message: transcript.Message{Role: []transcript.Role{"user", "assistant"}[i%2],
				Contents: []string{fmt.Sprintf("message %d of %s: the plan is to ship on Friday after the review", i, conv)}}}
		}
		if _, err := s.Append(ctx, conv, ids, transcript.Slice(recs...)); err != nil {
			t.Fatal(err)
		}
	}
	return convs
}

// summaryCounts counts the summaries stored in each conversation.
func summaryCounts(t *testing.T, db string) map[string]int {
	t.Helper()
	sqlDB, err := sql.Open("pgx", db)
	if err != nil {
		t.Fatal(err)
	}
	defer sqlDB.Close()
	rows, err := sqlDB.Query(`SELECT c.id, (SELECT count(*) FROM records r WHERE r.conversation = c.id AND r.role = 'summary') FROM conversations c`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := map[string]int{}
	for rows.Next() {
		var id string
		var k int
		if err := rows.Scan(&id, &k); err != nil {
			t.Fatal(err)
		}
		n[id] = k
	}
	return n
}

// TestConcurrentSummarizeAllPostgres: 3 processes run summarize --all -j 4
// over 200 conversations at once; the claims split the work, so every
// conversation is summarized exactly once, and the three tallies add up.
func TestConcurrentSummarizeAllPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("summarizes 200 conversations three times over")
	}
	db := pgtest.Schema(t)
	convs := seedPostgres(t, db, 200, 12)
	var wg sync.WaitGroup
	outs := make([]string, 3)
	errs := make(chan error, 3)
	for r := range 3 {
		wg.Go(func() {
			c := convoCmd(t, db, "summarize", "--all", "-j", "4", "--keep-last", "2")
			var stderr strings.Builder
			c.Stderr = &stderr
			err := c.Run()
			outs[r] = stderr.String()
			if err != nil {
				errs <- fmt.Errorf("runner %d: %v: %s", r, err, outs[r])
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	counts := summaryCounts(t, db)
	for _, conv := range convs {
		if counts[conv] != 1 {
			t.Fatalf("%s holds %d summaries, want 1; runners said:\n%s", conv, counts[conv], strings.Join(outs, ""))
		}
	}
	total := 0
	for _, out := range outs {
		var n int
		_, tally, _ := strings.Cut(out, "s: ")
		if _, err := fmt.Sscanf(tally, "%d summarized", &n); err != nil {
			t.Fatalf("tally %q: %v", out, err)
		}
		total += n
	}
	if total != len(convs) {
		t.Fatalf("the runners summarized %d in all, want %d:\n%s", total, len(convs), strings.Join(outs, ""))
	}
}

// TestKillSummarizeAllPostgres: of 3 runners sharing the work, one is
// killed mid-way; the server drops its claims with its connections, and the
// other two, looking again at what they found held, leave every
// conversation summarized exactly once.
func TestKillSummarizeAllPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("summarizes 60 conversations with a slow summarizer")
	}
	db := pgtest.Schema(t)
	convs := seedPostgres(t, db, 60, 8)
	// A slow summarizer, so that the victim is killed holding claims.
	args := []string{"summarize", "--all", "-j", "2", "--keep-last", "2", "--summarizer", "exec", "--exec", "sleep 0.1; head -c 200"}
	victim := convoCmd(t, db, args...)
	stdout, err := victim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			if out, err := convoCmd(t, db, args...).CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%v: %s", err, out)
			}
		})
	}
	// Killed once it stored its first summary, with more claimed.
	if !bufio.NewScanner(stdout).Scan() {
		t.Fatal("the victim printed no summary")
	}
	victim.Process.Kill()
	victim.Wait()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	counts := summaryCounts(t, db)
	for _, conv := range convs {
		if counts[conv] != 1 {
			t.Fatalf("%s holds %d summaries, want 1", conv, counts[conv])
		}
	}
}

// TestPostgresConnectionLostMidBatch: the server drops the connection of a
// 200,000-line append mid-transaction (as a restart does). The append fails
// saying nothing was stored, and nothing of the batch is.
func TestPostgresConnectionLostMidBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("appends 200,000 lines")
	}
	db := pgtest.Schema(t)
	u, _ := url.Parse(db)
	q := u.Query()
	q.Set("application_name", "convo-killed-batch")
	u.RawQuery = q.Encode()
	if out, err := convoCmd(t, db, "append", "-c", "big", "before").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var in strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&in, `{"role":%q,"content":"line %d"}`+"\n", []string{"assistant", "user"}[i%2], i)
	}
	c := convoCmd(t, u.String(), "append", "-q", "-c", "big")
	c.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("pgx", pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// Terminate the batch's backend once it is inside its transaction.
	killed := false
	for deadline := time.Now().Add(time.Minute); !killed && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var n int
		err := admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = 'convo-killed-batch' AND xact_start IS NOT NULL AND backend_xid IS NOT NULL`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		killed = n > 0
	}
	err = c.Wait()
	if !killed {
		t.Fatalf("never caught the batch in its transaction (append: %v)", err)
	}
	if _, ok := err.(*exec.ExitError); !ok || c.ProcessState.ExitCode() != 1 {
		t.Fatalf("append after its connection was dropped: %v, stderr %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "nothing of it was stored") {
		t.Errorf("stderr does not say nothing was stored: %s", stderr.String())
	}
	seen := storedContents(t, db, "big")
	if len(seen) != 1 || seen["before"] != 1 {
		t.Fatalf("after the failed batch the conversation holds %d strings, want only \"before\"", len(seen))
	}
}
