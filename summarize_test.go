package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/convo-cli/convo/cmd"
	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/iostreams"
)

// run runs the CLI in process and returns stdout, stderr and the exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	io, out, errOut := iostreams.Test(stdin)
	code := cmd.Run(context.Background(), args, io)
	return out.String(), errOut.String(), code
}

// seed stores a conversation of n alternating turns.
func seed(t *testing.T, db, conv string, n int) {
	t.Helper()
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, `{"role":%q,"content":"turn %d of %s: we talked about order #%d and the Lisbon trip."}`+"\n", []string{"user", "assistant"}[i%2], i, conv, 4000+i)
	}
	if _, errOut, code := run(t, in.String(), "--db", db, "append", "-q", "-c", conv); code != 0 {
		t.Fatalf("seed: exit %d: %s", code, errOut)
	}
}

func dump(t *testing.T, db, conv string) string {
	t.Helper()
	out, errOut, code := run(t, "", "--db", db, "get", "-c", conv)
	if code != 0 {
		t.Fatalf("get: %d %s", code, errOut)
	}
	return out
}

// provider is one network summarizer; the shared fake server
// (internal/providertest) speaks its wire format.
type provider struct{ name, keyEnv, urlEnv string }

var providers = []provider{
	{"openai", "OPENAI_API_KEY", "OPENAI_BASE_URL"},
	{"anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"},
	{"gemini", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"},
	{"ollama", "", "OLLAMA_HOST"},
}

// startFake starts the shared fake server playing steps, wanting
// secretKey from the providers that take a key, and points p at it.
func startFake(t *testing.T, p provider, steps ...providertest.Step) *providertest.Server {
	t.Helper()
	s := providertest.Start(providertest.Options{Steps: steps, Key: secretKey})
	t.Cleanup(s.Close)
	if p.keyEnv != "" {
		t.Setenv(p.keyEnv, secretKey)
	}
	t.Setenv(p.urlEnv, s.BaseURL(p.name))
	return s
}

const secretKey = "sk-test-SECRET-1234567890"

// TestSummarizeProviders drives every network summarizer through the CLI
// against a fake server speaking its wire format.
func TestSummarizeProviders(t *testing.T) {
	// Quick backoff; a Retry-After is still waited in full.
	t.Setenv("CONVO_RETRY_BASE_DELAY", "1ms")
	summary := &providertest.Answer{Text: "## Goal\n- Plan the Lisbon trip; order #4000 placed."}
	for _, p := range providers {
		ok := providertest.Step{Answer: summary}
		cases := []struct {
			name     string
			steps    []providertest.Step
			wantCode int
			wantErr  string
		}{
			{"success", []providertest.Step{ok}, 0, ""},
			{"429 with Retry-After, then success", []providertest.Step{{Status: 429, Error: "Rate limit reached", Header: map[string]string{"Retry-After": "1"}}, ok}, 0, ""},
			{"500 persists", []providertest.Step{{Status: 500, Error: "Internal error"}}, 1, "rror"},
			{"garbage body", []providertest.Step{{Body: "<html>oops</html>"}}, 1, "unexpected response body"},
			{"empty answer", []providertest.Step{{Answer: &providertest.Answer{}}}, 1, "incomplete"},
			{"cut short", []providertest.Step{{Answer: &providertest.Answer{Text: "## Goal", Finish: map[string]string{"openai": "length", "anthropic": "max_tokens", "gemini": "MAX_TOKENS", "ollama": "length"}[p.name]}}}, 1, "incomplete"},
			{"refusal text", []providertest.Step{{Answer: &providertest.Answer{Text: "I'm sorry, but I can't help with that."}}}, 1, "refusal"},
		}
		for _, tc := range cases {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				srv := startFake(t, p, tc.steps...)
				db := filepath.Join(t.TempDir(), "convo.db")
				seed(t, db, "c", 12)
				before := dump(t, db, "c")
				start := time.Now()
				out, errOut, code := run(t, "", "--db", db, "summarize", "-c", "c", "--keep-last", "2", "--summarizer", p.name, "--model", "m1")
				if code != tc.wantCode {
					t.Fatalf("exit %d, want %d; stderr: %s", code, tc.wantCode, errOut)
				}
				if strings.Contains(out+errOut, secretKey) {
					t.Fatalf("the API key leaked: %s %s", out, errOut)
				}
				if req := srv.Requests()[0]; req.Provider != p.name || req.Model != "m1" {
					t.Errorf("request %s for model %q", req.Path, req.Model)
				}
				after := dump(t, db, "c")
				if tc.wantCode != 0 {
					if after != before {
						t.Fatalf("a failed summarize changed the store")
					}
					if !strings.Contains(errOut, tc.wantErr) {
						t.Fatalf("stderr %q lacks %q", errOut, tc.wantErr)
					}
					return
				}
				if !strings.Contains(out, `"role":"summary","contents":["## Goal\n- Plan the Lisbon trip; order #4000 placed.`) ||
					!strings.Contains(out, `"summarizer":"`+p.name+`"`) {
					t.Fatalf("summary record: %s", out)
				}
				if strings.Count(after, `"role":"summary"`) != 1 {
					t.Fatalf("want one summary stored:\n%s", after)
				}
				if len(tc.steps) > 1 && time.Since(start) < time.Second {
					t.Fatalf("Retry-After: 1 not honoured (took %v)", time.Since(start))
				}
			})
		}
	}
}

// TestSummarizeAllAgainstFakeServer: 200 conversations, -j 8: every one is
// summarized exactly once and the server saw one request each.
func TestSummarizeAllAgainstFakeServer(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	var mu sync.Mutex
	inFlight, peak := 0, 0
	srv := providertest.Start(providertest.Options{Steps: []providertest.Step{{Handle: func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		fmt.Fprint(w, providertest.Body("openai", "", &providertest.Answer{Text: "- summary of the talk"}))
	}}}})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL("openai"))
	db := filepath.Join(t.TempDir(), "convo.db")
	for i := range n {
		seed(t, db, fmt.Sprintf("conv-%03d", i), 10)
	}
	out, errOut, code := run(t, "", "--db", db, "summarize", "--all", "-j", "8", "--keep-last", "1", "--summarizer", "openai", "--model", "m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := strings.Count(out, `"role":"summary"`); got != n || len(srv.Requests()) != n {
		t.Fatalf("%d summaries printed, %d requests; want %d", got, len(srv.Requests()), n)
	}
	if peak > 8 || peak < 2 {
		t.Errorf("peak concurrency %d, want 2..8", peak)
	}
	if !strings.Contains(errOut, fmt.Sprintf("%d conversations", n)) || !strings.Contains(errOut, fmt.Sprintf("%d summarized", n)) {
		t.Errorf("tally: %s", errOut)
	}
	// A second run finds nothing new to cover anywhere.
	out, errOut, code = run(t, "", "--db", db, "summarize", "--all", "-j", "8", "--keep-last", "1", "--summarizer", "openai", "--model", "m")
	if code != 0 || strings.Contains(out, "summary") || !strings.Contains(errOut, fmt.Sprintf("%d with nothing to cover", n)) {
		t.Fatalf("second run: exit %d, out %q, err %q", code, out, errOut)
	}
}

// TestKillDuringSummarize: SIGKILL while the summarizer runs leaves the
// store as it was; a summarize that finishes leaves the whole summary.
func TestKillDuringSummarize(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	db := filepath.Join(t.TempDir(), "convo.db")
	seed(t, db, "c", 12)
	before := dump(t, db, "c")
	c := exec.Command("convo", "summarize", "-c", "c", "--keep-last", "1", "--summarizer", "exec", "--exec", "sleep 5; echo late summary")
	c.Env = append(os.Environ(), "CONVO_DB="+db)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	if after := dump(t, db, "c"); after != before {
		t.Fatalf("store changed by a killed summarize")
	}
	out, errOut, code := run(t, "", "--db", db, "summarize", "-c", "c", "--keep-last", "1", "--summarizer", "exec", "--exec", "cat >/dev/null; echo '- the gist'")
	if code != 0 || !strings.Contains(out, "the gist") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
}

// TestAskAndSummarizeSendAlike: for every provider both call, ask and
// summarize send to the same endpoint, with the same headers, the same
// request shape and the same output limit (the registry's default: none
// but anthropic's 4096).
func TestAskAndSummarizeSendAlike(t *testing.T) {
	limits := map[string][]string{
		"openai": {"max_completion_tokens"}, "anthropic": {"max_tokens"},
		"gemini": {"generationConfig", "maxOutputTokens"}, "ollama": {"options", "num_predict"},
	}
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := startFake(t, p, providertest.Step{Answer: &providertest.Answer{Text: "## Goal\n- Plan the Lisbon trip."}})
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			db := filepath.Join(t.TempDir(), "convo.db")
			if _, errOut, code := run(t, "", "--db", db, "append", "-q", "-c", "c", "--role", "system", "You are terse."); code != 0 {
				t.Fatal(errOut)
			}
			seed(t, db, "c", 12)
			var model []string
			if p.name == "ollama" {
				model = []string{"--model", "llama3.2"} // no default: only the user knows what is pulled
			}
			if _, errOut, code := run(t, "", append([]string{"--db", db, "summarize", "-c", "c", "--keep-last", "2", "--summarizer", p.name}, model...)...); code != 0 {
				t.Fatalf("summarize: %s", errOut)
			}
			if _, errOut, code := run(t, "", append([]string{"--db", db, "ask", "-c", "c", "--provider", p.name, "And the hotel?"}, model...)...); code != 0 {
				t.Fatalf("ask: %s", errOut)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			sum, ask := reqs[0], reqs[1]
			if sum.Path != ask.Path || sum.Model != ask.Model || sum.Provider != p.name {
				t.Errorf("summarize: %s %s, ask: %s %s", sum.Path, sum.Model, ask.Path, ask.Model)
			}
			sum.Header.Del("Content-Length")
			ask.Header.Del("Content-Length")
			if !reflect.DeepEqual(sum.Header, ask.Header) {
				t.Errorf("headers differ:\nsummarize %v\nask       %v", sum.Header, ask.Header)
			}
			if s, a := shape(sum.Body), shape(ask.Body); s != a {
				t.Errorf("request shapes differ:\nsummarize %s\nask       %s", s, a)
			}
			s, a := dig(sum.Body, limits[p.name]...), dig(ask.Body, limits[p.name]...)
			if want := map[string]any{"anthropic": 4096.0}[p.name]; s != want || a != want {
				t.Errorf("output limit: summarize %v, ask %v, want %v", s, a, want)
			}
		})
	}
}

// shape is a JSON value's structure: object keys with their values'
// shapes, an array as the set of its elements' shapes, a type for the rest.
func shape(v any) string {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]json.RawMessage{}
		for k, e := range x {
			m[k] = json.RawMessage(shape(e))
		}
		b, _ := json.Marshal(m)
		return string(b)
	case []any:
		set := map[string]bool{}
		for _, e := range x {
			set[shape(e)] = true
		}
		elems := slices.Sorted(maps.Keys(set))
		return "[" + strings.Join(elems, ",") + "]"
	case nil:
		return `"null"`
	}
	return fmt.Sprintf("%q", fmt.Sprintf("%T", v))
}
