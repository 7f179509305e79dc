package tokens

import (
	"sync"
	"testing"
)

// fuzzCounters are shared by the fuzz runs of a process, so their caches
// fill as they would over a long conversation and Count is checked on
// hits as well as misses.
var fuzzCounters = sync.OnceValues(func() ([]*Counter, error) {
	var cs []*Counter
	for _, name := range Names {
		c, err := New(name)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return cs, nil
})

// maxFuzzInput bounds the inputs tried. The fuzzer minimizes each input
// that finds new code, for up to a minute, with work that grows as the
// square of its length: on a long one it spends the run on a few slow
// executions. Every rule of the patterns shows within this length (a piece
// of 96 bytes or more takes the codec's other merge).
const maxFuzzInput = 256

// fuzzEachCounter fuzzes check on every counter, with the tricky texts as
// seeds and inputs past maxFuzzInput skipped.
func fuzzEachCounter(f *testing.F, check func(t *testing.T, c *Counter, s string)) {
	for _, s := range trickyTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > maxFuzzInput {
			t.Skip()
		}
		cs, err := fuzzCounters()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			check(t, c, s)
		}
	})
}

// FuzzCountMatchesCodec: Count equals the codec's count for any string, in
// every encoding.
func FuzzCountMatchesCodec(f *testing.F) {
	fuzzEachCounter(f, func(t *testing.T, c *Counter, s string) {
		want, err := codecOf(t, c).Count(s)
		if err != nil {
			t.Fatalf("%s: codec count of %q: %v", c.name, s, err)
		}
		if got := c.Count(s); got != want {
			t.Fatalf("%s: Count(%q) = %d, codec %d", c.name, s, got, want)
		}
	})
}

// FuzzSplitMatchesCodec: the splitters cut any string into the codec's
// pieces, and each piece alone counts as it does in its text.
func FuzzSplitMatchesCodec(f *testing.F) {
	fuzzEachCounter(f, checkAgainstCodec)
}
