package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/convo-cli/convo/cmd"
	"github.com/convo-cli/convo/internal/pgtest"
	"github.com/convo-cli/convo/internal/providertest"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script with what convo prints")

// TestMain lets the test binary act as the convo command: testscript puts it
// on PATH as "convo", so scripts and the process tests run the real CLI.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"convo": func() { os.Exit(cmd.Main()) },
	})
}

func TestScript(t *testing.T) {
	testscript.Run(t, scriptParams(false, func(env *testscript.Env) (string, error) {
		return env.WorkDir + "/convo.db", nil
	}))
}

// TestScriptPostgres runs the same scripts with CONVO_DB on PostgreSQL, an
// empty schema each; [postgres] is true in them. It skips, saying so,
// without a server (CONVO_TEST_POSTGRES).
func TestScriptPostgres(t *testing.T) {
	server := pgtest.URL(t)
	testscript.Run(t, scriptParams(true, func(env *testscript.Env) (string, error) {
		u, drop, err := pgtest.NewSchema(server)
		if err == nil {
			env.Defer(drop)
		}
		return u, err
	}))
}

// scriptParams are the scripts' settings with the store db gives each;
// postgres is the scripts' [postgres] condition.
func scriptParams(postgres bool, db func(*testscript.Env) (string, error)) testscript.Params {
	return testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"serve":        serveCmd,
			"compacting":   compactingCmd,
			"post":         postCmd,
			"batchresults": batchResultsCmd,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "postgres" {
				return postgres, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			// Every script gets its own store and no user config.
			store, err := db(env)
			if err != nil {
				return err
			}
			env.Setenv("CONVO_DB", store)
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_DATA_HOME", env.WorkDir+"/.local/share")
			return nil
		},
	}
}

// serveCmd is the script command "serve RESPONSE_FILE": the shared fake
// provider (internal/providertest) for the rest of the script, answering
// every POST with the file's content once it has checked the request as
// the provider would (a JSON object; for Anthropic, roles alternating
// user/assistant from the user), and saving it as $WORK/received.json (its
// headers, the key hidden, as received.headers). It sets $SERVER.
func serveCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: serve RESPONSE_FILE")
	}
	response := ts.ReadFile(args[0])
	srv := providertest.Start(providertest.Options{Next: func(_ int, r *providertest.Request) providertest.Step {
		saveRequest(ts, r)
		return providertest.Step{Body: response}
	}})
	ts.Defer(srv.Close)
	ts.Setenv("SERVER", srv.URL)
}

// compactingCmd is the script command "compacting SUMMARY [TEXT]": the
// shared fake provider for the rest of the script, answering in the format
// each request's path names with a compaction (SUMMARY its readable text,
// or, "-", an Anthropic block whose content is null) followed by the
// answer TEXT, if any; /responses/compact answers with the request's user
// messages and the item. It checks and saves each request as serve does.
func compactingCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: compacting SUMMARY [TEXT]")
	}
	a := &providertest.Answer{Compaction: args[0], CompactionNull: args[0] == "-"}
	if len(args) == 2 {
		a.Text = args[1]
	}
	srv := providertest.Start(providertest.Options{Next: func(_ int, r *providertest.Request) providertest.Step {
		saveRequest(ts, r)
		os.WriteFile(ts.MkAbs("received.path"), []byte(r.Path+"\n"), 0o644)
		return providertest.Step{Answer: a}
	}})
	ts.Defer(srv.Close)
	ts.Setenv("SERVER", srv.URL)
}

// saveRequest writes a request the fake got as $WORK/received.json and its
// headers (secrets hidden) as received.headers.
func saveRequest(ts *testscript.TestScript, r *providertest.Request) {
	os.WriteFile(ts.MkAbs("received.json"), []byte(r.Raw), 0o644)
	var headers strings.Builder
	for _, k := range slices.Sorted(maps.Keys(r.Header)) {
		fmt.Fprintf(&headers, "%s: %s\n", k, strings.Join(r.Header[k], ", "))
	}
	os.WriteFile(ts.MkAbs("received.headers"), []byte(headers.String()), 0o644)
}

// postCmd is the script command "post URL FILE": POSTs the file as JSON and
// writes the response body to stdout; a status over 299 fails it.
func postCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: post URL FILE")
	}
	resp, err := http.Post(args[0], "application/json", bytes.NewBufferString(ts.ReadFile(args[1])))
	ts.Check(err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	ts.Stdout().Write(body)
	if failed := resp.StatusCode > 299; failed != neg {
		ts.Fatalf("POST %s: status %d: %s", args[0], resp.StatusCode, body)
	}
}
