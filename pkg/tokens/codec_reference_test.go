package tokens

import (
	"reflect"
	"slices"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/tiktoken-go/tokenizer"

	"github.com/convo-cli/convo/pkg/tokens/internal/vocab"
)

// The tests hold the hand-written splitters to the codec's own: the
// compiled pattern in its unexported splitRegexp field, reached by
// reflection. That tests against the library as it is (pattern and engine
// of the version in go.mod), where a copy of the pattern could drift, and
// keeps regexp2 out of go.mod's direct requirements.

// codecs holds tiktoken-go's codec of each encoding: the oracle.
var codecs sync.Map // encoding name → tokenizer.Codec

// codecOf returns tiktoken-go's codec of c's encoding.
func codecOf(t testing.TB, c *Counter) tokenizer.Codec {
	t.Helper()
	if codec, ok := codecs.Load(c.name); ok {
		return codec.(tokenizer.Codec)
	}
	codec, err := vocab.Codec(c.name)
	if err != nil {
		t.Fatal(err)
	}
	codecs.Store(c.name, codec)
	return codec
}

// referenceSplit calls the codec's split regexp.
type referenceSplit struct {
	findFirst, findNext reflect.Value
}

var referenceSplits sync.Map // encoding name → *referenceSplit

func referenceFor(t testing.TB, c *Counter) *referenceSplit {
	t.Helper()
	if r, ok := referenceSplits.Load(c.name); ok {
		return r.(*referenceSplit)
	}
	v := reflect.ValueOf(codecOf(t, c))
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	f := v.FieldByName("splitRegexp")
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		t.Fatalf("%s: the codec has no splitRegexp pointer field any more: adapt the test to the library", c.name)
	}
	re := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	r := &referenceSplit{findFirst: re.MethodByName("FindStringMatch"), findNext: re.MethodByName("FindNextMatch")}
	if !r.findFirst.IsValid() || !r.findNext.IsValid() {
		t.Fatalf("%s: the split regexp lacks FindStringMatch or FindNextMatch", c.name)
	}
	referenceSplits.Store(c.name, r)
	return r
}

// codecPieces returns the pieces the codec cuts s into: the strings of its
// regexp's matches (invalid bytes come back as U+FFFD).
func codecPieces(t testing.TB, c *Counter, s string) []string {
	t.Helper()
	r := referenceFor(t, c)
	var pieces []string
	out := r.findFirst.Call([]reflect.Value{reflect.ValueOf(s)})
	for {
		if err := out[1]; !err.IsNil() {
			t.Fatalf("%s: codec split of %q: %v", c.name, s, err.Interface())
		}
		m := out[0]
		if m.IsNil() {
			return pieces
		}
		pieces = append(pieces, m.MethodByName("String").Call(nil)[0].String())
		out = r.findNext.Call([]reflect.Value{m})
	}
}

// ourPieces returns the pieces Count cuts s into.
func ourPieces(c *Counter, s string) []string {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	var pieces []string
	for at := 0; at < len(s); {
		end := c.split(s, at)
		if end == at {
			_, w := utf8.DecodeRuneInString(s[at:])
			at += w
			continue
		}
		pieces = append(pieces, s[at:end])
		at = end
	}
	return pieces
}

// checkAgainstCodec fails t unless Count, the pieces, and the count of
// each piece alone agree with the codec on s.
func checkAgainstCodec(t *testing.T, c *Counter, s string) {
	t.Helper()
	want, err := codecOf(t, c).Count(s)
	if err != nil {
		t.Fatalf("%s: codec count of %q: %v", c.name, s, err)
	}
	ref := codecPieces(t, c, s)
	if got := ourPieces(c, s); !slices.Equal(got, ref) {
		t.Fatalf("%s: pieces of %q:\n got %q\nwant %q", c.name, s, got, ref)
	}
	// A piece split alone is itself, so the codec counts it alone as it
	// does in its text: what lets Count count (and cache) pieces alone.
	sum := 0
	for _, p := range ref {
		if alone := codecPieces(t, c, p); len(alone) != 1 || alone[0] != p {
			t.Fatalf("%s: piece %q of %q splits alone into %q", c.name, p, s, alone)
		}
		n, _ := codecOf(t, c).Count(p)
		sum += n
	}
	if sum != want {
		t.Fatalf("%s: the pieces of %q count %d tokens alone, %d together", c.name, s, sum, want)
	}
	if got := c.Count(s); got != want {
		t.Fatalf("%s: Count(%q) = %d, codec %d", c.name, s, got, want)
	}
	if got := c.Count(s); got != want { // again, from the cache
		t.Fatalf("%s: Count(%q) = %d the second time, codec %d", c.name, s, got, want)
	}
}

// counters returns a Counter for each supported encoding.
func counters(t testing.TB) []*Counter {
	t.Helper()
	var cs []*Counter
	for _, name := range Names {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}
