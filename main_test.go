package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/convo-cli/convo/cmd"
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
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"serve": serveCmd,
			"post":  postCmd,
		},
		Setup: func(env *testscript.Env) error {
			// Every script gets its own store and no user config.
			env.Setenv("CONVO_DB", env.WorkDir+"/convo.db")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_DATA_HOME", env.WorkDir+"/.local/share")
			return nil
		},
	})
}

// serveCmd is the script command "serve RESPONSE_FILE": an HTTP server for
// the rest of the script that answers every POST with the file's content,
// after checking that the request is a JSON object whose messages (if any)
// alternate user/assistant starting with user, as the strictest providers
// demand, and saving it as $WORK/received.json. It sets $SERVER.
func serveCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: serve RESPONSE_FILE")
	}
	response := []byte(ts.ReadFile(args[0]))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, `{"error":{"message":"request is not JSON"}}`, http.StatusBadRequest)
			return
		}
		want := "user"
		for _, m := range req.Messages {
			if r.URL.Path == "/v1/messages" && m.Role != want { // Anthropic's rule
				http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"roles must alternate"}}`, http.StatusBadRequest)
				return
			}
			want = map[string]string{"user": "assistant", "assistant": "user"}[m.Role]
		}
		os.WriteFile(ts.MkAbs("received.json"), body, 0o644)
		w.Header().Set("Content-Type", "application/json")
		w.Write(response)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("SERVER", srv.URL)
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
