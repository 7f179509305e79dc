package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to make a schema
)

// postgresSchemas numbers the schemas this process makes.
var postgresSchemas atomic.Int64

// freshPostgres creates an empty schema on the CONVO_TEST_POSTGRES server,
// dropped when the test ends, and returns a URL whose connections use it;
// without a server the test skips and says so.
func freshPostgres(t *testing.T) string {
	t.Helper()
	base := os.Getenv("CONVO_TEST_POSTGRES")
	if base == "" {
		t.Skip("CONVO_TEST_POSTGRES is not set: no PostgreSQL server to test against (.ci/run starts one)")
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("convo_copy_test_%d_%d", os.Getpid(), postgresSchemas.Add(1))
	if _, err := admin.Exec("CREATE SCHEMA " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("pgx", base); err == nil {
			db.Exec("DROP SCHEMA " + name + " CASCADE")
			db.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// convoOut runs the convo binary on store db and returns its stdout; a failure fails the test.
func convoOut(t *testing.T, db, stdin string, args ...string) string {
	t.Helper()
	c := convoCmd(t, db, args...)
	c.Stdin = strings.NewReader(stdin)
	var errOut strings.Builder
	c.Stderr = &errOut
	out, err := c.Output()
	if err != nil {
		t.Fatalf("convo %s (store %s): %v\n%s", strings.Join(args, " "), db, err, errOut.String())
	}
	return string(out)
}

// TestCopyPostgresRoundTrip copies a SQLite store into PostgreSQL and from
// there into a new SQLite store: every conversation reads back byte for
// byte, list --json (counts, summaries, export cursors) is the same, and
// the incremental exports of the last store send exactly what the first
// one's would: nothing to a sink that was sent everything, the held record
// to a sink that held it back.
func TestCopyPostgresRoundTrip(t *testing.T) {
	pg := freshPostgres(t)
	dir := t.TempDir()
	first, last := filepath.Join(dir, "first.db"), filepath.Join(dir, "last.db")

	turns := `{"id":"01JRZJ166J2WRMF990535EVSQ1","message":{"role":"system","contents":["Be brief."]},"metadata":{"timing":{"creation":1744815823001}}}
{"id":"01JRZJ166J2WRMF990535EVSQ2","message":{"role":"user","contents":["Weather in Paris?"]},"metadata":{"timing":{"creation":1744815823002}}}
{"id":"01JRZJ166J2WRMF990535EVSQ3","message":{"role":"user","contents":["And tomorrow? ☂ \"quoted\" \u00e9\t"]},"metadata":{"timing":{"creation":1744815823003}}}
{"id":"01JRZJ166J2WRMF990535EVSQ4","message":{"role":"assistant","contents":["Sunny."]},"metadata":{"timing":{"creation":1744815823004},"aux":{"model":"m","n":1.50}}}
{"id":"01JRZJ166J2WRMF990535EVSQ5","message":{"role":"user","contents":["Lisbon?"]},"metadata":{"timing":{"creation":1744815823005}}}
{"id":"01JRZJ166J2WRMF990535EVSQ6","message":{"role":"assistant","contents":["Rainy."]},"metadata":{"timing":{"creation":1744815823006}}}
{"id":"01JRZJ166J2WRMF990535EVSQ7","message":{"role":"user","contents":["Thanks."]},"metadata":{"timing":{"creation":1744815823007}}}
`
	convoOut(t, first, turns, "append", "-q", "-c", "trip")
	convoOut(t, first, "", "summarize", "-q", "-c", "trip", "--keep-last", "1")
	schema := filepath.Join(dir, "city.schema.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	convoOut(t, first, "", "schema", "set", "-c", "trip", schema)
	for i := range 12 {
		conv := fmt.Sprintf("ci-%02d", i)
		for j := range i%4 + 1 {
			convoOut(t, first, "", "append", "-q", "-c", conv, "--role", []string{"user", "assistant"}[j%2], fmt.Sprintf("%s turn %d", conv, j))
		}
	}
	// Everything sent to "default"; "held" holds each last record back.
	convoOut(t, first, "", "export", "--all", "--incremental")
	convoOut(t, first, "", "export", "--all", "--incremental", "--exclude-last", "--sink", "held")

	convoOut(t, first, "", "copy", "--all", "--to", pg)
	convoOut(t, pg, "", "copy", "--all", "--to", last)

	list := convoOut(t, first, "", "list", "--json")
	for _, db := range []string{pg, last} {
		if got := convoOut(t, db, "", "list", "--json"); got != list {
			t.Fatalf("list --json of %s:\n%s\nwant\n%s", db, got, list)
		}
	}
	convs := 0
	for line := range strings.Lines(list) {
		var c struct{ Conversation string }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		convs++
		want := convoOut(t, first, "", "get", "-c", c.Conversation)
		for _, db := range []string{pg, last} {
			if got := convoOut(t, db, "", "get", "-c", c.Conversation); got != want {
				t.Fatalf("get -c %s from %s:\n%s\nwant\n%s", c.Conversation, db, got, want)
			}
		}
	}
	if convs != 13 {
		t.Fatalf("%d conversations listed, want 13", convs)
	}
	if got, want := convoOut(t, last, "", "schema", "show", "-c", "trip"), convoOut(t, first, "", "schema", "show", "-c", "trip"); got != want {
		t.Fatalf("schema after the round trip: %s, want %s", got, want)
	}

	if out := convoOut(t, last, "", "export", "--all", "--incremental"); out != "" {
		t.Fatalf("the first incremental export after the round trip sent:\n%s", out)
	}
	if out := convoOut(t, last, "", "export", "--all", "--incremental", "--exclude-last", "--sink", "held"); out != "" {
		t.Fatalf("the held sink's export with --exclude-last after the round trip sent:\n%s", out)
	}
	held := convoOut(t, first, "", "export", "--all", "--incremental", "--sink", "held")
	if got := convoOut(t, last, "", "export", "--all", "--incremental", "--sink", "held"); got != held || strings.Count(held, "\n") != 13 {
		t.Fatalf("the held records after the round trip:\n%s\nwant (13 lines)\n%s", got, held)
	}
}
