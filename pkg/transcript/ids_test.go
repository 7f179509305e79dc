package transcript

import (
	"crypto/sha256"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// SourceID: the time part is the source's time, the random part a hash of
// its identity; the same source makes the same id, and ids sort by time.
func TestSourceID(t *testing.T) {
	at := time.UnixMilli(1744815823058)
	id := SourceID(at, "openai", "chatcmpl-1")
	u, err := ulid.ParseStrict(id)
	if err != nil {
		t.Fatalf("%q: %v", id, err)
	}
	if u.Time() != 1744815823058 {
		t.Errorf("time part %d, want 1744815823058 (%s)", u.Time(), id)
	}
	// The random part is what append --from made before the time part was
	// set: an answer stored then is still known by it.
	h := sha256.Sum256([]byte("openai\x00chatcmpl-1"))
	if !slices.Equal(u[6:], h[:10]) {
		t.Errorf("random part %x, want %x", u[6:], h[:10])
	}
	if again := SourceID(at, "openai", "chatcmpl-1"); again != id {
		t.Errorf("same source: %s, then %s", id, again)
	}
	for _, other := range []string{SourceID(at, "openai", "chatcmpl-2"), SourceID(at, "anthropic", "chatcmpl-1"), SourceID(at, "openai", "chatcmpl-1", "x")} {
		if SameSource(other, id) {
			t.Errorf("%s and %s: another source, the same random part", other, id)
		}
	}
	later := SourceID(at.Add(time.Millisecond), "openai", "chatcmpl-0")
	if later <= id {
		t.Errorf("a later source sorts first: %s <= %s", later, id)
	}
	if !SameSource(SourceID(at.Add(time.Hour), "openai", "chatcmpl-1"), id) {
		t.Error("the same source at another time is not SameSource")
	}
	if SameSource(id, "short") || SameSource("", "") {
		t.Error("SameSource took what is no ULID")
	}
	// Out of range: the epoch, ULID's end.
	for _, c := range []struct {
		t    time.Time
		want uint64
	}{{time.Time{}, 0}, {time.UnixMilli(-5), 0}, {time.UnixMilli(int64(ulid.MaxTime()) + 10), ulid.MaxTime()}} {
		u, err := ulid.ParseStrict(SourceID(c.t, "p", "r"))
		if err != nil || u.Time() != c.want {
			t.Errorf("SourceID(%v): time %d, %v; want %d", c.t, u.Time(), err, c.want)
		}
	}
}
