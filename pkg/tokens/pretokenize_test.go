package tokens

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// trickyTexts are inputs where a splitter is easily wrong: the table test
// runs them and the fuzz targets start from them.
var trickyTexts = []string{
	"", "a", " ", "  ", "\n", "\r\n", "\t",
	"hello world", "Hello World", "HELLO WORLD", "hello  world", "hello   world",
	"I'll go, you'd've thought; it's DON'T WON'T Can't he'S 'll 'LL 'Re 've 'm 'd",
	"'s", "'", "''", "x'", "x's", "x'ſ", "'ſ", "X'ſa", "'re'", "ab'lL", "ab'Lx",
	"order ORD-55821 ships Friday", "it cost 1249.50 EUR", "we meet on 2026-05-14 at 08:40",
	"$1,249.99", "€35", "1234567", "12 345", "x1y22z333w4444",
	"https://example.com/orders/ORD-55821?ref=mail&x=1#top", "a//b", "// comment\n//\n",
	"a \n \n  b", "a\n\n\nb", "a \r\n\r\n b", "a\r\r\n\n b", "  \n", "\n  ", "x  \t y", "x \u00a0 y",
	"end   ", "   start", " \u3000x", "\u2028x\u2029",
	"café naïve Müller Ærøskøbing İstanbul ǅemal ǈ", "東京 では 雨", "中A", "ABC中def",
	"e\u0301", "\u0301", "\u0301abc", "\u0301ABC", " \u0301", "A\u0301B", "ab\u0301\u0302cd", "\u0903x",
	"👍 thanks!! 🎉🎉", "ok👍", "١٢٣٤ ٥", "Ⅻ ½ ²³", "x²", "ʰello", "ʰ", "ABʰ", "ABʰC",
	"[\"json\", {\"a\": 1}]\n", "(see above)", "...\n\n", " ?!\r\n", " ---\n\n---", "x!/\n/",
	"\x00\x01\x1f", "\x7f", "a\x7fb", " \x7f", "\x7fabc", "!\x7f!", " \x7f\n", "\xff", "a\xffb", "\xe2\x82", "\xed\xa0\x80", "ok\xc3", "\xc3\xa9\xe9",
	"\v\f\u0085\u1680x",
	// Special tokens: the codec's Count reads them as text.
	"<|endoftext|>", "a<|endofprompt|>b", "<|fim_prefix|>x<|fim_middle|>y<|fim_suffix|>",
	strings.Repeat(" ", 100) + "x", strings.Repeat("ab", 60), strings.Repeat("A", 70) + "b",
}

func TestSplitMatchesCodec(t *testing.T) {
	for _, c := range counters(t) {
		for _, s := range trickyTexts {
			checkAgainstCodec(t, c, s)
		}
	}
}

// TestSplitQuirks pins pieces that follow the codec's engine, not the
// pattern as written, so a test fails here too if the reference harness
// ever silently agreed with a wrong splitter.
func TestSplitQuirks(t *testing.T) {
	for _, tc := range []struct {
		encoding, text string
		want           []string
	}{
		{"o200k_base", "a \n \n  b", []string{"a", " \n", " \n", " ", " b"}},
		{"cl100k_base", "a \n \n  b", []string{"a", " \n", " \n", " ", " b"}},
		{"o200k_base", "I'll ORD-55821", []string{"I'll", " ORD", "-", "558", "21"}},
		{"cl100k_base", "I'll ORD-55821", []string{"I", "'ll", " ORD", "-", "558", "21"}},
		{"o200k_base", "x'ſ", []string{"x'ſ"}},
		{"o200k_base", "\u0301AB", []string{"\u0301", "AB"}},
		{"o200k_base", "a//b\n", []string{"a", "//", "b", "\n"}},
		{"o200k_base", "x  \ty", []string{"x", "  ", "\ty"}},
		{"o200k_base", " !\x7f!\x7fab", []string{" !", "!", "ab"}},
		{"cl100k_base", "\x7f \x7f", []string{" "}},
	} {
		c, err := New(tc.encoding)
		if err != nil {
			t.Fatal(err)
		}
		if got := ourPieces(c, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%s: pieces of %q = %q, want %q", tc.encoding, tc.text, got, tc.want)
		}
	}
}

// TestClassOf checks classOf, which stops at a rune's first class, against
// the classes tested one by one as the codec's engine does, for every rune.
func TestClassOf(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		var want runeClass
		if unicode.Is(unicode.L, r) {
			want |= classLetter
		}
		if unicode.Is(unicode.N, r) {
			want |= classNumber
		}
		if unicode.IsSpace(r) {
			want |= classSpace
		}
		if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
			want |= classHead
		}
		if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
			want |= classTail
		}
		if got := classOf(r); got != want {
			t.Fatalf("classOf(%U) = %05b, want %05b", r, got, want)
		}
		if r < utf8.RuneSelf && asciiClass[r] != want {
			t.Fatalf("asciiClass[%U] = %05b, want %05b", r, asciiClass[r], want)
		}
	}
}

// TestSplitRandomRunes strings together runes from every class the
// patterns tell apart, where the fuzzer's byte mutations rarely reach:
// title case, modifier letters, marks, letters of no case, other numbers,
// each kind of space, line breaks, apostrophes and the contractions'
// letters.
func TestSplitRandomRunes(t *testing.T) {
	alphabet := []rune("aAsStTlLdDmMrReEvVxſ'' \t\n\r\v\u00a0\u2028\u3000\u0085/!-.,0915٣½Ⅻǅʰ中\u0301\u0903\u20dd\x7f😀")
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for _, c := range counters(t) {
		for range n {
			runes := make([]rune, rng.IntN(24))
			for i := range runes {
				runes[i] = alphabet[rng.IntN(len(alphabet))]
			}
			checkAgainstCodec(t, c, string(runes))
		}
	}
}
