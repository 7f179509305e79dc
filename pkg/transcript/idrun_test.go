package transcript

import (
	"testing"

	"github.com/oklog/ulid/v2"
)

// A run's ids are ULIDs of its millisecond, rising with their number, and
// sort after every id the generator made before and before every one after.
func TestIDRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		before    bool // an id made in the run's millisecond first
		wantAfter uint64
	}{{"fresh", false, 1000}, {"same millisecond", true, 1001}} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewIDs()
			var first string
			if tc.before {
				first = g.New(1000)
			}
			run := g.Run(1000)
			prev := first
			for _, i := range []int64{0, 1, 31, 32, 1 << 20, 1<<39 - 1} {
				id := run.ID(i)
				u, err := ulid.ParseStrict(id)
				if err != nil {
					t.Fatalf("id %d %q: %v", i, id, err)
				}
				if u.Time() != tc.wantAfter {
					t.Errorf("id %d: time %d, want %d", i, u.Time(), tc.wantAfter)
				}
				if id <= prev {
					t.Errorf("id %d %q is not after %q", i, id, prev)
				}
				prev = id
			}
			if next := g.New(1000); next <= prev {
				t.Errorf("an id made after the run, %q, sorts before its last, %q", next, prev)
			}
		})
	}
}
