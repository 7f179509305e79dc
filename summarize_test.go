package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/convo-cli/convo/cmd"
)

// run runs the CLI in process and returns stdout, stderr and the exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	io, out, errOut := cmd.Test(stdin)
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

// provider fakes one provider's wire format.
type provider struct {
	name, keyEnv, urlEnv string
	body                 func(text string) string
	errorBody            string
}

var providers = []provider{
	{"openai", "OPENAI_API_KEY", "OPENAI_BASE_URL",
		func(text string) string {
			b, _ := json.Marshal(text)
			return `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":` + string(b) + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29}}`
		},
		`{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`},
	{"anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		func(text string) string {
			b, _ := json.Marshal(text)
			return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":` + string(b) + `}],"stop_reason":"end_turn","usage":{"input_tokens":19,"output_tokens":10}}`
		},
		`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`},
	{"gemini", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL",
		func(text string) string {
			b, _ := json.Marshal(text)
			return `{"candidates":[{"content":{"parts":[{"text":` + string(b) + `}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":19,"candidatesTokenCount":10,"totalTokenCount":29},"modelVersion":"gemini-2.5-flash"}`
		},
		`{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}`},
}

const secretKey = "sk-test-SECRET-1234567890"

// TestSummarizeProviders drives every network summarizer through the CLI
// against a fake server speaking its wire format.
func TestSummarizeProviders(t *testing.T) {
	type step struct {
		status int
		body   string
		header map[string]string
	}
	for _, p := range providers {
		ok := step{200, p.body("## Goal\n- Plan the Lisbon trip; order #4000 placed."), nil}
		cases := []struct {
			name     string
			steps    []step
			wantCode int
			wantErr  string
		}{
			{"success", []step{ok}, 0, ""},
			{"429 with Retry-After, then success", []step{{429, p.errorBody, map[string]string{"Retry-After": "1"}}, ok}, 0, ""},
			{"500 persists", []step{{500, p.errorBody, nil}}, 1, "rror"},
			{"garbage body", []step{{200, "<html>oops</html>", nil}}, 1, ""},
			{"empty answer", []step{{200, p.body(""), nil}}, 1, ""},
			{"refusal text", []step{{200, p.body("I'm sorry, but I can't help with that."), nil}}, 1, "refusal"},
		}
		for _, tc := range cases {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				var calls atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					n := int(calls.Add(1)) - 1
					st := tc.steps[min(n, len(tc.steps)-1)]
					for k, v := range st.header {
						w.Header().Set(k, v)
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(st.status)
					fmt.Fprint(w, st.body)
				}))
				defer srv.Close()
				t.Setenv(p.keyEnv, secretKey)
				t.Setenv(p.urlEnv, srv.URL)
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
	var calls atomic.Int32
	var mu sync.Mutex
	inFlight, peak := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		fmt.Fprint(w, providers[0].body("- summary of the talk"))
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	db := filepath.Join(t.TempDir(), "convo.db")
	for i := range n {
		seed(t, db, fmt.Sprintf("conv-%03d", i), 10)
	}
	out, errOut, code := run(t, "", "--db", db, "summarize", "--all", "-j", "8", "--keep-last", "1", "--summarizer", "openai", "--model", "m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := strings.Count(out, `"role":"summary"`); got != n || int(calls.Load()) != n {
		t.Fatalf("%d summaries printed, %d requests; want %d", got, calls.Load(), n)
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
