package transcript

import (
	"crypto/rand"
	"crypto/sha256"
	"strings"
	"sync"
	"time"

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

// SourceID is the one rule for an id made from outside data (a provider's
// answer read by append --from, an imported entry): a ULID whose time part
// is t, the source's own time (or now, when it gives none), and whose
// random part is the first 80 bits of the SHA-256 of parts, the source's
// identity (for an answer: the provider's name and the response id),
// joined by NUL bytes. Ids so made sort by time, and the same source read
// again makes the same id, which the store then skips. A time before the
// epoch counts as the epoch, one past ULID's range as its end.
func SourceID(t time.Time, parts ...string) string {
	var id ulid.ULID
	ms := t.UnixMilli()
	switch {
	case t.IsZero() || ms < 0:
		ms = 0
	case uint64(ms) > ulid.MaxTime():
		ms = int64(ulid.MaxTime())
	}
	_ = id.SetTime(uint64(ms)) // within range: cannot fail
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	copy(id[6:], h[:10])
	return id.String()
}

// SameSource reports whether two ids have the random part SourceID gives
// one source, whatever their time parts: a source read again at another
// time (an answer whose body gives no time) is the same source.
func SameSource(a, b string) bool {
	return len(a) == ulid.EncodedSize && len(b) == ulid.EncodedSize && strings.EqualFold(a[10:], b[10:])
}

// PlaceholderID is the id of the placeholder (rule 2) inserted before the
// record whose id is before: derived from it, so that every store and
// every append of the same records gives the placeholder the same id.
// It has before's time part and before's random part less one, so it
// sorts right before it; "" when before is no ULID (or its random part
// is zero), and the placeholder takes a fresh id.
func PlaceholderID(before string) string {
	id, err := ulid.ParseStrict(before)
	if err != nil {
		return ""
	}
	for i := len(id) - 1; i >= 6; i-- {
		if id[i] > 0 {
			id[i]--
			return id.String()
		}
		id[i] = 0xff
	}
	return ""
}
