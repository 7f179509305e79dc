package cmd

import (
	"errors"
	"fmt"
	"strings"
	"testing"

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
