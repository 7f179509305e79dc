package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
)

// TestClaimsLapse: a claim its holder never gave up (the holder was
// killed) is refused to others until it lapses: a lease once
// store.ClaimLease has passed since it was taken or renewed, which
// HeldUntil tells; a session lock once its holder's connection closes.
// ReleaseClaims gives up every lease of an owner at once (a run exiting
// without its workers); a session lock needs no such thing.
func (x suite) TestClaimsLapse(t *testing.T) {
	open := x.backend(t)
	ctx := context.Background()
	now := time.UnixMilli(1_744_815_823_000)
	handle := func() store.Store {
		s, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		setNow(t, s, func() time.Time { return now })
		return s
	}
	a, b := handle(), handle()
	claim := func(s store.Store, conv, owner string) func(bool) {
		t.Helper()
		release, ok, err := s.Claim(ctx, conv, owner, 0)
		if err != nil {
			t.Fatalf("claim %s as %s: %v", conv, owner, err)
		}
		if !ok {
			return nil
		}
		return release
	}
	held := claim(a, "c", "runner-a")
	if held == nil {
		t.Fatal("first claim refused")
	}
	if r := claim(b, "c", "runner-b"); r != nil {
		r(false)
		t.Fatal("a held conversation was claimed")
	}
	until, err := b.HeldUntil(ctx, []string{"c", "free"})
	if err != nil {
		t.Fatal(err)
	}
	if free, err := b.HeldUntil(ctx, []string{"free"}); err != nil || !free.IsZero() {
		t.Fatalf("HeldUntil of a conversation nobody holds: %v, %v", free, err)
	}

	if until.IsZero() { // a session lock: it goes with its holder
		a.Close()
		// The server drops the holder's locks as its backend exits, a
		// moment after the client closed the connection: a loaded server
		// (the search index's schema made it a little longer) needs a
		// few milliseconds.
		r := claim(b, "c", "runner-b")
		for deadline := time.Now().Add(2 * time.Second); r == nil && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			r = claim(b, "c", "runner-b")
		}
		if r == nil {
			t.Fatal("a claim outlived its holder's connection")
		}
		r(false)
		return
	}
	defer held(false) // stops the renewals
	if want := now.Add(store.ClaimLease); !until.Equal(want) {
		t.Fatalf("HeldUntil = %v, want the lease's end %v", until, want)
	}
	now = until.Add(-time.Millisecond)
	if r := claim(b, "c", "runner-b"); r != nil {
		r(false)
		t.Fatal("a lease was taken before it lapsed")
	}
	now = until
	r := claim(b, "c", "runner-b")
	if r == nil {
		t.Fatal("a lease its holder stopped renewing did not lapse")
	}
	r(false)

	// ReleaseClaims: every lease of the owner goes at once.
	now = now.Add(time.Minute)
	for _, conv := range []string{"d", "e"} {
		r := claim(a, conv, "runner-a")
		if r == nil {
			t.Fatalf("claim of %s refused", conv)
		}
		defer r(false) // stops the renewals (the lease is someone else's by then)
	}
	if err := a.ReleaseClaims(ctx, "runner-a"); err != nil {
		t.Fatal(err)
	}
	for _, conv := range []string{"d", "e"} {
		r := claim(b, conv, "runner-b")
		if r == nil {
			t.Fatalf("%s still held after ReleaseClaims", conv)
		}
		r(false)
	}
}
