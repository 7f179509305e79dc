package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
)

// TestRateSlots: reservations on one key get distinct slots one interval
// apart, starting now; another key is independent; an idle limiter starts
// again at now.
func (x suite) TestRateSlots(t *testing.T) {
	s := x.open(t)
	now := time.UnixMilli(1_744_815_823_000)
	setNow(t, s, func() time.Time { return now })
	ctx := context.Background()
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}
	for i, w := range want {
		slot, err := s.RateSlot(ctx, "openai/m", 100*time.Millisecond)
		if err != nil || slot.Sub(now) != w {
			t.Fatalf("slot %d: %v after now, want %v (%v)", i, slot.Sub(now), w, err)
		}
	}
	if slot, _ := s.RateSlot(ctx, "gemini/m", time.Second); !slot.Equal(now) {
		t.Errorf("another key waits: %v", slot.Sub(now))
	}
	now = now.Add(time.Hour)
	if slot, _ := s.RateSlot(ctx, "openai/m", 100*time.Millisecond); !slot.Equal(now) {
		t.Errorf("an idle limiter waits: %v", slot.Sub(now))
	}
}

// TestRateSlotsShared: two handles on one store (as two processes) reserving
// at once never get the same slot.
func (x suite) TestRateSlotsShared(t *testing.T) {
	open := x.backend(t)
	ctx := context.Background()
	var stores []store.Store
	for range 2 {
		s, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	var mu sync.Mutex
	var slots []int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				slot, err := stores[i%2].RateSlot(ctx, "k", time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				slots = append(slots, slot.UnixMicro())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(slots)
	for i := 1; i < len(slots); i++ {
		if gap := slots[i] - slots[i-1]; gap < time.Second.Microseconds() {
			t.Fatalf("slots %d and %d only %dµs apart", i-1, i, gap)
		}
	}
}

// TestConversationSchema: set, replace, read, delete; clear deletes it too.
func (x suite) TestConversationSchema(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	if _, ok, err := s.Schema(ctx, "c"); ok || err != nil {
		t.Fatalf("%v %v", ok, err)
	}
	for _, body := range []string{`{"type":"object"}`, `{"type":"array"}`} {
		if err := s.SetSchema(ctx, "c", store.ConversationSchema{Name: "x", Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
		sc, ok, err := s.Schema(ctx, "c")
		if !ok || err != nil || string(sc.Body) != body || sc.Name != "x" {
			t.Fatalf("%+v %v %v", sc, ok, err)
		}
	}
	if had, err := s.DeleteSchema(ctx, "c"); !had || err != nil {
		t.Fatal(had, err)
	}
	if had, _ := s.DeleteSchema(ctx, "c"); had {
		t.Fatal("deleted twice")
	}
	s.SetSchema(ctx, "c", store.ConversationSchema{Name: "x", Body: []byte(`{}`)})
	if _, err := s.Clear(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Schema(ctx, "c"); ok {
		t.Fatal("clear left the schema")
	}
}

// TestClaims: a conversation claimed by one handle (as one process) is not
// claimable by another until released; claims of different conversations
// do not touch; one finished since a runner started is refused to it, and
// one given up unfinished is not.
func (x suite) TestClaims(t *testing.T) {
	open := x.backend(t)
	ctx := context.Background()
	var h [2]store.Store
	for i := range h {
		s, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		h[i] = s
	}
	start := time.Now().Add(-time.Minute).UnixMilli()
	release, ok, err := h[0].Claim(ctx, "c", "runner-0", start)
	if err != nil || !ok {
		t.Fatalf("first claim: ok %v, %v", ok, err)
	}
	if _, ok, err := h[1].Claim(ctx, "c", "runner-1", start); err != nil || ok {
		t.Fatalf("claim of a held conversation: ok %v, %v; want refused", ok, err)
	}
	other, ok, err := h[1].Claim(ctx, "d", "runner-1", start)
	if err != nil || !ok {
		t.Fatalf("claim of another conversation: ok %v, %v", ok, err)
	}
	other(false)
	release(true)
	if _, ok, err := h[1].Claim(ctx, "c", "runner-1", start); err != nil || ok {
		t.Fatalf("claim of a conversation finished since the start: ok %v, %v; want refused", ok, err)
	}
	again, ok, err := h[1].Claim(ctx, "c", "runner-1", time.Now().Add(time.Minute).UnixMilli())
	if err != nil || !ok {
		t.Fatalf("claim by a runner that started after it was finished: ok %v, %v", ok, err)
	}
	again(false)
	if d, ok, err := h[0].Claim(ctx, "d", "runner-0", start); err != nil || !ok {
		t.Fatalf("claim of a conversation given up unfinished: ok %v, %v", ok, err)
	} else {
		d(false)
	}
}
