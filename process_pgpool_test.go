package main

// Issue 27 (Hardening II), items 26 and 29: runners and a PostgreSQL
// server's connections.

import (
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/pgtest"
)

var pgRoles atomic.Int64

// pgRole makes a login role with at most limit connections (-1: no
// limit) that may use the test's schema db, and returns db as that role
// and a connection as the server's superuser, to change the limit and end
// the role's sessions.
func pgRole(t *testing.T, db string, limit int) (string, *sql.DB) {
	t.Helper()
	admin, err := sql.Open("pgx", pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	role := fmt.Sprintf("convo_runner_%d_%d", os.Getpid(), pgRoles.Add(1))
	schema := u.Query().Get("search_path")
	for _, q := range []string{
		fmt.Sprintf(`CREATE ROLE %s LOGIN CONNECTION LIMIT %d`, role, limit),
		fmt.Sprintf(`GRANT ALL ON SCHEMA %s TO %s`, schema, role),
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		admin.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, role)
		admin.Exec(`DROP OWNED BY ` + role + ` CASCADE`)
		admin.Exec(`DROP ROLE ` + role)
	})
	u.User = url.User(role)
	return u.String(), admin
}

// TestRunnersFitTheServer: eight runners of summarize --all -j 4 share a
// server that lets them 32 connections in all (the sizing rule: runners ×
// --db-max-conns, 4 by default whatever -j). None is refused, and every
// conversation is summarized exactly once. Each runner once opened up to
// 4 × -j connections, and those over the limit failed their conversations
// with "too many connections".
func TestRunnersFitTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("summarizes 200 conversations with eight runners")
	}
	const runners = 8
	db, _ := pgRole(t, pgtest.Schema(t), runners*4)
	convs := seedPostgres(t, db, 200, 12)
	var wg sync.WaitGroup
	outs := make([]string, runners)
	errs := make(chan error, runners)
	for r := range runners {
		wg.Go(func() {
			// A summarizer that takes a while: claims are held while it works.
			c := convoCmd(t, db, "summarize", "--all", "-j", "4", "--keep-last", "2", "--summarizer", "exec", "--exec", "sleep 0.05; head -c 200")
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
}

// TestServerRestartMidRun: the server goes away for a second in the
// middle of summarize --all (40 conversations, 2 at a time, 0.2 s each), as in a restart: every connection of the
// runner is ended (SQLSTATE 57P01) and new ones are refused (53300) for
// that time. The runner tries again, with backoff, instead of failing
// every conversation left: it exits 0 and every conversation holds one
// summary.
func TestServerRestartMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("summarizes 40 conversations with a slow summarizer")
	}
	db, admin := pgRole(t, pgtest.Schema(t), -1)
	u, _ := url.Parse(db)
	role, schema := u.User.Username(), u.Query().Get("search_path")
	convs := seedPostgres(t, db, 40, 8)
	c := convoCmd(t, db, "summarize", "--all", "-j", "2", "--keep-last", "2", "--summarizer", "exec", "--exec", "sleep 0.2; head -c 200")
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	summaries := func() int {
		var n int
		if err := admin.QueryRow(`SELECT count(*) FROM ` + schema + `.records WHERE role = 'summary'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for tries := 0; summaries() < 2; tries++ { // the run is under way
		if tries == 6000 {
			t.Fatalf("no summary stored; stderr %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, q := range []string{
		`ALTER ROLE ` + role + ` CONNECTION LIMIT 0`,
		`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = '` + role + `'`,
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if summaries() == len(convs) {
		t.Fatal("the run was over before the server went down: nothing was tested")
	}
	time.Sleep(time.Second) // the server is "down" this long
	if _, err := admin.Exec(`ALTER ROLE ` + role + ` CONNECTION LIMIT -1`); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatalf("summarize --all across the restart: %v; stderr %s", err, stderr.String())
	}
	counts := summaryCounts(t, db)
	for _, conv := range convs {
		if counts[conv] != 1 {
			t.Fatalf("%s holds %d summaries, want 1; stderr %s", conv, counts[conv], stderr.String())
		}
	}
}
