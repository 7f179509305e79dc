package extractive

import (
	"slices"
	"strings"
	"testing"
)

// scanPhrases must cut every text as it did before it was made to spare
// allocations (phrases_reference_test.go): the summary's bytes depend on it.

func TestPhrasesMatchReference(t *testing.T) {
	for _, text := range scanSeeds() {
		checkPhrasesMatchReference(t, text)
	}
}

func FuzzPhrasesMatchReference(f *testing.F) {
	for _, s := range scanSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkPhrasesMatchReference(t, text)
	})
}

func checkPhrasesMatchReference(t *testing.T, text string) {
	t.Helper()
	if got, want := scanPhrases(text), splitPhrasesReference(text); !slices.Equal(got, want) {
		t.Fatalf("scanPhrases(%q)\n got %+v\nwant %+v", text, got, want)
	}
	for _, field := range strings.Fields(text) {
		for _, w := range []string{field, strings.TrimFunc(field, isEdgePunct)} {
			if got, want := foldWord(w), foldWordReference(w); got != want {
				t.Fatalf("foldWord(%q) = %q, want %q", w, got, want)
			}
			if got, want := string(stemAppend(nil, w)), stemReference(w); got != want {
				t.Fatalf("stem(%q) = %q, want %q", w, got, want)
			}
			if got, want := atomic(w), atomicReference(w); got != want {
				t.Fatalf("atomic(%q) = %v, want %v", w, got, want)
			}
			if got, want := isContent(w), isContentReference(w); got != want {
				t.Fatalf("isContent(%q) = %v, want %v", w, got, want)
			}
		}
		for _, next := range []string{"", "and", "And"} {
			for _, open := range []bool{false, true} {
				checkFieldTokens(t, field, next, open)
			}
		}
	}
}

func checkFieldTokens(t *testing.T, field, next string, quoteOpen bool) {
	t.Helper()
	got, want := appendFieldTokens(nil, field, next, quoteOpen), fieldTokensReference(field, next, quoteOpen)
	if len(got) != len(want) {
		t.Fatalf("fieldTokens(%q, %q, %v)\n got %+v\nwant %+v", field, next, quoteOpen, got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		// Punctuation is only compared with ASCII marks: its text may
		// differ where an invalid byte stands (U+FFFD before).
		same := g.word == w.word && (g.text == w.text || !g.word &&
			(g.text == ",") == (w.text == ",") && strings.ContainsAny(g.text, ".!?:") == strings.ContainsAny(w.text, ".!?:"))
		if !same {
			t.Fatalf("fieldTokens(%q, %q, %v)\n got %+v\nwant %+v", field, next, quoteOpen, got, want)
		}
	}
}
