// Package storetest is the conformance suite every store backend passes:
// append and its merges, reads, summaries, the lifecycle commands, export
// cursors, rate-limit slots, claims and copying, all through the
// store.Store interface. A backend's own test calls Run.
package storetest

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Backend gives each test its own empty store: called once per test, it
// returns an Opener whose every call opens a new handle on that one store,
// as another process would.
type Backend func(t testing.TB) Opener

// Opener opens a handle on a test's store.
type Opener func() (store.Store, error)

// Run runs every test of the suite against the backend, each as a subtest
// named after it (TestConcurrentWriters runs as ".../ConcurrentWriters").
func Run(t *testing.T, b Backend) {
	x := suite{backend: b}
	v := reflect.ValueOf(x)
	for i := range v.NumMethod() {
		m := v.Type().Method(i)
		name, ok := strings.CutPrefix(m.Name, "Test")
		if !ok {
			continue
		}
		fn := v.Method(i).Interface().(func(*testing.T))
		t.Run(name, fn)
	}
}

type suite struct{ backend Backend }

// open opens the test's store, closed when the test ends.
func (x suite) open(t testing.TB) store.Store {
	t.Helper()
	s, err := x.backend(t)()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// setNow gives s a fake clock: backends offer SetNow for the suite.
func setNow(t testing.TB, s store.Store, now func() time.Time) {
	t.Helper()
	c, ok := s.(interface{ SetNow(func() time.Time) })
	if !ok {
		t.Fatalf("%T has no SetNow: the suite needs a settable clock", s)
	}
	c.SetNow(now)
}

// insertSummary places sum right after the record anchorID (rule 5); with
// deleteCovered the records it covers go in the same transaction (rule 6).
func insertSummary(s store.Store, ctx context.Context, conv, anchorID string, sum *transcript.Record, deleteCovered bool) error {
	return s.WriteSummary(ctx, conv, store.SummaryWrite{Anchor: anchorID, Summary: sum, DeleteCovered: deleteCovered})
}
