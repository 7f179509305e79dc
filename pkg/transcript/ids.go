package transcript

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"strconv"
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

// IDRun is a run of ids made in one go, for a statement that numbers its
// rows itself (a fork inside the store): the i-th id (from 0) is Prefix,
// 18 characters (the time and 40 random bits), then Start+i in the last 8
// characters (40 bits), so the ids rise with i.
type IDRun struct {
	Prefix string
	Start  int64
}

// runSuffixBits is the counter's width; Start is below half its range, so
// a run of 2^39 ids never carries into the prefix.
const runSuffixBits = 40

// Run returns a run of ids whose time part is ms, or the millisecond after
// the last id made, when ms is not later: the random part of a run is its
// own, so no id of this generator may share its millisecond. Ids made
// after it take a later millisecond, so they sort after the whole run.
func (g *IDs) Run(ms int64) IDRun {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := uint64(max(ms, 0))
	if t <= g.last && g.last > 0 {
		t = g.last + 1
	}
	var id ulid.ULID
	_ = id.SetTime(t) // below 2^48 for ten thousand years
	_, _ = rand.Read(id[6:])
	// The low 40 bits are the counter's: start below 2^39.
	id[11] &= 0x7f
	start := int64(id[11])<<32 | int64(id[12])<<24 | int64(id[13])<<16 | int64(id[14])<<8 | int64(id[15])
	g.last = t + 1
	return IDRun{Prefix: id.String()[:26-runSuffixBits/5], Start: start}
}

// crockford is ULID's alphabet, in ascending order.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ID returns the run's i-th id.
func (r IDRun) ID(i int64) string {
	v := r.Start + i
	b := []byte(r.Prefix + "00000000")
	for k := len(b) - 1; k >= len(r.Prefix); k-- {
		b[k] = crockford[v&31]
		v >>= 5
	}
	return string(b)
}

// SQL is the SQL expression of the run's id for the row numbered by the
// expression n (from 1), in SQLite and PostgreSQL alike: the prefix, then
// Start+n-1 written in ULID's alphabet, 5 bits a character.
func (r IDRun) SQL(n string) string {
	v := "(" + strconv.FormatInt(r.Start-1, 10) + " + " + n + ")"
	var b strings.Builder
	b.WriteString("'" + r.Prefix + "'")
	for k := runSuffixBits/5 - 1; k >= 0; k-- {
		// CAST: PostgreSQL has no substr of a bigint position.
		fmt.Fprintf(&b, " || substr('%s', CAST(((%s >> %d) & 31) + 1 AS INTEGER), 1)", crockford, v, 5*k)
	}
	return b.String()
}
