package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/store/sqlite"
)

// The behaviour of ask is tested where it lives: pkg/ask (the use case,
// against every provider's transport and the shared fake) and cmd (flags
// and printing). What stays here needs the real binary: several processes
// sharing one rate limiter, and the scripts.

// askKey is the API key the ask scripts send: it must never appear in
// output, stored records or raw files.
const askKey = "sk-ask-test-KEY-5f2e9c01"

// dig follows path through decoded JSON objects, nil where it ends.
func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// TestAskRateConcurrentProcesses: 20 asks from 4 processes at --rate 10/1s
// share one limiter through the store, and none fails. What the limiter
// guarantees whatever the machine's load, and all this test asserts of
// time: it hands out one slot per request, each 100ms after the one before
// (the limiter's next slot ends 20 intervals after the start at the
// earliest), and no request goes out before its slot, so the i-th request
// to reach the server arrives at least i intervals after the start. How
// long the whole run takes is the machine's business, not asserted.
func TestAskRateConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 20 processes")
	}
	srv := providertest.Start(providertest.Options{Steps: []providertest.Step{{Answer: &providertest.Answer{Text: "ok"}}}, Key: askKey})
	t.Cleanup(srv.Close)
	db := filepath.Join(t.TempDir(), "convo.db")
	env := append(os.Environ(), "CONVO_DB="+db, "XDG_CONFIG_HOME="+t.TempDir(),
		"OPENAI_API_KEY="+askKey, "OPENAI_BASE_URL="+srv.BaseURL("openai"))
	const procs, each, interval = 4, 5, 100 * time.Millisecond
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				// A conversation each: asks into one conversation at once conflict.
				c := exec.Command("convo", "ask", "-c", fmt.Sprintf("conv-%d", i), "--provider", "openai", "--rate", "10/1s", fmt.Sprintf("p%d-q%d", i, j))
				c.Env = env
				if out, err := c.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("process %d ask %d: %v: %s", i, j, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	reqs := srv.Requests()
	if len(reqs) != procs*each {
		t.Fatalf("%d requests, want %d", len(reqs), procs*each)
	}
	slices.SortFunc(reqs, func(a, b providertest.Request) int { return a.At.Compare(b.At) })
	for i, r := range reqs {
		// 5ms for the rounding between the processes' clocks and the
		// server's timestamps.
		if early := time.Duration(i)*interval - r.At.Sub(start); early > 5*time.Millisecond {
			t.Errorf("request %d arrived %v after the start, %v before its slot", i, r.At.Sub(start), early)
		}
	}
	s, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var next int64
	if err := s.DB().QueryRow(`SELECT next FROM rate_limits WHERE key = 'openai/gpt-4o-mini'`).Scan(&next); err != nil {
		t.Fatal(err)
	}
	if slots := time.UnixMicro(next).Sub(start); slots < procs*each*interval-5*time.Millisecond {
		t.Errorf("the limiter's next slot is %v after the start, want %d slots of %v at least", slots, procs*each, interval)
	}
	for i := range procs {
		if n := strings.Count(dump(t, db, fmt.Sprintf("conv-%d", i)), "\n"); n != 2*each {
			t.Errorf("conv-%d: %d records stored, want %d", i, n, 2*each)
		}
	}
}

// TestAskScript runs the ask scripts: testdata/script/ask*.txtar (no
// server; TestScript runs them too) and testdata/ask/*.txtar, which get a
// fake provider playing the responses the script writes (see fakeFromFiles).
func TestAskScript(t *testing.T) {
	files, _ := filepath.Glob("testdata/script/ask*.txtar")
	setup := func(env *testscript.Env) error {
		env.Setenv("CONVO_DB", env.WorkDir+"/convo.db")
		env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
		env.Setenv("XDG_DATA_HOME", env.WorkDir+"/.local/share")
		env.Setenv("CONVO_RETRY_BASE_DELAY", "1ms")
		env.Setenv("CONVO_RETRY_MAX_DELAY", "50ms")
		return nil
	}
	t.Run("script", func(t *testing.T) {
		if testing.Short() {
			t.Skip("TestScript runs testdata/script/ask*.txtar too")
		}
		testscript.Run(t, testscript.Params{Files: files, RequireExplicitExec: true, Setup: setup, UpdateScripts: *update})
	})
	t.Run("fake", func(t *testing.T) {
		testscript.Run(t, testscript.Params{
			Dir: "testdata/ask", RequireExplicitExec: true, UpdateScripts: *update,
			Setup: func(env *testscript.Env) error {
				if err := setup(env); err != nil {
					return err
				}
				srv := providertest.Start(providertest.Options{Next: fakeFromFiles(env.WorkDir), Key: askKey})
				env.Defer(srv.Close)
				env.Setenv("OPENAI_BASE_URL", srv.BaseURL("openai"))
				env.Setenv("ANTHROPIC_BASE_URL", srv.BaseURL("anthropic"))
				env.Setenv("GOOGLE_GEMINI_BASE_URL", srv.BaseURL("gemini"))
				env.Setenv("OLLAMA_HOST", srv.BaseURL("ollama"))
				env.Setenv("OPENAI_API_KEY", askKey)
				env.Setenv("ANTHROPIC_API_KEY", askKey)
				env.Setenv("GEMINI_API_KEY", askKey)
				env.Setenv("TEST_KEY", askKey)
				return nil
			},
		})
	})
}

// fakeFromFiles answers each request with the oldest file of
// $WORK/fake/queue (deleting it), or $WORK/fake/reply when the queue is
// empty. A file holds the status code on its first line, header lines, a
// blank line, then the body. Each request body is saved as
// $WORK/fake/request.json, and its path in $WORK/fake/request.path.
func fakeFromFiles(dir string) func(int, *providertest.Request) providertest.Step {
	var mu sync.Mutex
	return func(_ int, r *providertest.Request) providertest.Step {
		mu.Lock()
		defer mu.Unlock()
		fake := filepath.Join(dir, "fake")
		_ = os.WriteFile(filepath.Join(fake, "request.json"), []byte(r.Raw), 0o644)
		_ = os.WriteFile(filepath.Join(fake, "request.path"), []byte(r.Path+"\n"), 0o644)
		name := filepath.Join(fake, "reply")
		queued, _ := filepath.Glob(filepath.Join(fake, "queue", "[^.]*"))
		if len(queued) > 0 {
			slices.Sort(queued)
			name = queued[0]
			defer os.Remove(name)
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return providertest.Step{Status: http.StatusTeapot, Body: err.Error()}
		}
		head, payload, _ := strings.Cut(string(data), "\n\n")
		lines := strings.Split(head, "\n")
		st := providertest.Step{Body: payload, Header: map[string]string{}}
		fmt.Sscan(lines[0], &st.Status)
		for _, l := range lines[1:] {
			if k, v, ok := strings.Cut(l, ":"); ok {
				st.Header[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
		return st
	}
}
