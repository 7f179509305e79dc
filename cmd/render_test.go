package cmd

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
)

// pipeline hands every kept body over in order, across many batches, and
// stops both goroutines on the first error of either side.
func TestPipeline(t *testing.T) {
	const n = 20000
	body := strings.Repeat("x", 90)
	read := func(fn func(store.Row) error) error {
		for i := range n {
			role := "user"
			if i%10 == 9 {
				role = "system"
			}
			if err := fn(store.Row{Role: role, Body: []byte(fmt.Sprintf("%06d%s", i, body))}); err != nil {
				return err
			}
		}
		return nil
	}
	keep := func(r store.Row) bool { return r.Role != "system" }

	next, got := 0, 0
	err := pipeline(read, keep, func(b []byte) error {
		if next%10 == 9 {
			next++ // a system row, not kept
		}
		if want := fmt.Sprintf("%06d%s", next, body); string(b) != want {
			return fmt.Errorf("got %.6s, want %.6s", b, want)
		}
		next++
		got++
		return nil
	})
	if err != nil || got != n-n/10 {
		t.Fatalf("err %v after %d bodies", err, got)
	}

	boom := errors.New("boom")
	seen := 0
	err = pipeline(read, keep, func([]byte) error {
		if seen++; seen == 5000 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || seen != 5000 {
		t.Fatalf("err %v after %d bodies, want boom after 5000", err, seen)
	}

	readErr := errors.New("disk")
	err = pipeline(func(fn func(store.Row) error) error {
		_ = fn(store.Row{Role: "user", Body: []byte("a")})
		return readErr
	}, keep, func([]byte) error { return nil })
	if !errors.Is(err, readErr) {
		t.Fatalf("err %v, want the read error", err)
	}
}

// TestFormatRequest: render's flags become a format.Request, checked
// against the registry: the providers it names, where the model goes.
func TestFormatRequest(t *testing.T) {
	f, _, errOut := testFactory(t, "")
	for _, tc := range []struct {
		o    renderOptions
		want string // a substring of the usage error, "" for none
	}{
		{renderOptions{provider: "openai"}, ""},
		{renderOptions{}, "missing --provider (one of " + format.NameList(format.CanRender) + ")"},
		{renderOptions{provider: "cohere"}, `--provider "cohere": want one of openai, anthropic, gemini, bedrock, vercel, vercel-legacy, ollama`},
		{renderOptions{provider: "openai", model: "m"}, "add --body"},
		{renderOptions{provider: "openai", body: true}, "--body needs --model for openai"},
		{renderOptions{provider: "gemini", body: true}, ""},
		{renderOptions{provider: "anthropic", body: true, model: "m", maxTokens: -1}, "--max-tokens -1"},
		{renderOptions{provider: "anthropic", body: true, model: "m", temperature: "hot"}, "--temperature"},
	} {
		_, err := f.formatRequest(&tc.o)
		var ue *usageError
		if tc.want == "" && err != nil || tc.want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	req, err := f.formatRequest(&renderOptions{provider: "bedrock", body: true, model: "m", temperature: "0.5"})
	if err != nil || *req.Temperature != 0.5 || !strings.Contains(errOut.String(), "bedrock takes the model in the URL") {
		t.Errorf("%+v %v %q", req, err, errOut.String())
	}
	if !strings.Contains(defaultLimits(), "anthropic 4096") {
		t.Errorf("defaultLimits() = %q", defaultLimits())
	}
}
