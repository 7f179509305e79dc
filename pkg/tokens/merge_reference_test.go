package tokens

import (
	"reflect"
	"slices"
	"testing"
	"unsafe" // go:linkname, and the codec's unexported vocabulary

	"github.com/tiktoken-go/tokenizer/codec"
)

// The merge is held to the codec's own, called through go:linkname: its
// mergePairs is unexported, and a copy of it in the test could drift from
// the library in go.mod, as a copy of its patterns could.

// codecPart mirrors the codec's part (offset int, rank uint).
type codecPart struct {
	offset int
	rank   uint
}

//go:linkname codecMergePairs github.com/tiktoken-go/tokenizer/codec.(*Codec).mergePairs
func codecMergePairs(c *codec.Codec, piece string) []codecPart

// codecBounds returns the boundaries of the tokens the codec merges piece
// into, as bpe's Split does: a piece that is a token is that token.
func codecBounds(t testing.TB, c *Counter, piece string) []int {
	t.Helper()
	cc, ok := codecOf(t, c).(*codec.Codec)
	if !ok {
		t.Fatalf("%s: the codec is a %T, not a *codec.Codec any more: adapt the test to the library", c.name, codecOf(t, c))
	}
	if codecVocabulary(t, cc).MapIndex(reflect.ValueOf(piece)).IsValid() {
		return []int{0, len(piece)} // a token: the codec looks it up first
	}
	var bounds []int
	for _, p := range codecMergePairs(cc, piece) {
		bounds = append(bounds, p.offset)
	}
	return bounds
}

// codecVocabulary returns the codec's vocabulary map (token → rank), its
// unexported field reached by reflection.
func codecVocabulary(t testing.TB, cc *codec.Codec) reflect.Value {
	t.Helper()
	f := reflect.ValueOf(cc).Elem().FieldByName("vocabulary")
	if !f.IsValid() || f.Kind() != reflect.Map {
		t.Fatal("the codec has no vocabulary map field any more: adapt the test to the library")
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// checkMerge fails t unless the table merges piece as the codec does.
func checkMerge(t *testing.T, c *Counter, piece string) {
	t.Helper()
	want := codecBounds(t, c, piece)
	if got := c.table().Split(piece); !slices.Equal(got, want) {
		t.Fatalf("%s: merge of %q:\n got %v\nwant %v", c.name, piece, got, want)
	}
	if got := c.table().Count(piece); got != len(want)-1 {
		t.Fatalf("%s: Count(%q) = %d, codec %d", c.name, piece, got, len(want)-1)
	}
}

// FuzzMergeMatchesCodec: the table merges any bytes as the codec does,
// valid UTF-8 or not, short (scan) or long (heap).
func FuzzMergeMatchesCodec(f *testing.F) {
	fuzzEachCounter(f, checkMerge)
}

// TestFirstRankMatchesCodec: Rarity's first token and count are the
// codec's first id and number of ids, on words and on the tricky texts.
func TestFirstRankMatchesCodec(t *testing.T) {
	words := []string{"the", "pizza", "violin", "gatsby", "guinea", "ørsted", "東京", "don't", "x-ray", "1999", "", " "}
	for _, c := range counters(t) {
		for _, w := range append(words, trickyTexts...) {
			text := " " + w
			ids, _, err := codecOf(t, c).Encode(text)
			if err != nil {
				t.Fatalf("%s: codec encode of %q: %v", c.name, text, err)
			}
			var want uint32
			if len(ids) > 0 {
				want = uint32(ids[0])
			}
			if got := c.firstRank(text); got != want || c.Count(text) != len(ids) {
				t.Errorf("%s: %q: first rank %d of %d tokens, codec %d of %d", c.name, text, got, c.Count(text), want, len(ids))
			}
		}
	}
}
