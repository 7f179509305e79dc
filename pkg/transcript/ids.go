package transcript

import (
	"crypto/rand"
	"sync"

	"github.com/oklog/ulid/v2"
)

// IDs hands out ULIDs that increase within the process, so ids sort in
// creation order even within one millisecond.
type IDs struct {
	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
	last    uint64
}

// NewIDs returns a generator seeded from crypto/rand.
func NewIDs() *IDs { return &IDs{entropy: ulid.Monotonic(rand.Reader, 0)} }

// New returns a fresh ULID for the instant ms; an instant earlier than the
// last one used is moved up to it, so order never goes backwards.
func (g *IDs) New(ms int64) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := uint64(max(ms, 0))
	if t < g.last {
		t = g.last
	}
	id, err := ulid.New(t, g.entropy)
	if err != nil {
		// The entropy overflowed within one millisecond: step to the next.
		t++
		id = ulid.MustNew(t, g.entropy)
	}
	g.last = t
	return id.String()
}
