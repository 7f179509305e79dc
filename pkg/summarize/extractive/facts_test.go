package extractive

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestExtractFacts(t *testing.T) {
	if got := extractFacts("see https://example.com/docs for more", false); !slices.Contains(got, "https://example.com/docs") {
		t.Errorf("a URL without digits was missed: %q", got)
	}
	text := `Please never book over 30 EUR. Order #4512 for Matt Patterson ships 2026-05-12 or 7 May 2023; see https://x.example/a?b=1. Config key user_id and fooBar, build A123. I have 2 ideas and 4 years of it.`
	got := extractFacts(text, true)
	for _, want := range []string{"30 EUR", "#4512", "Matt Patterson", "2026-05-12", "7 May 2023", "https://x.example/a?b=1", "user_id", "fooBar", "A123", "4 years", "Please never book over 30 EUR."} {
		if !slices.Contains(got, want) {
			t.Errorf("facts lack %q: %q", want, got)
		}
	}
	for _, bad := range []string{"2", "Please", "I"} {
		if slices.Contains(got, bad) {
			t.Errorf("facts hold noise %q", bad)
		}
	}
	// A name is whole with the plus signs that close it.
	if got := extractFacts("We moved from Hulu to Disney+ and Notepad++, Mel+Jo said.", false); !slices.Equal(got, []string{"Hulu", "Disney+", "Notepad++", "Mel", "Jo"}) {
		t.Errorf("names with a plus: %q", got)
	}
}

func FuzzExtractFacts(f *testing.F) {
	f.Add("Order #4512 for Matt Patterson on 7 May 2023 at https://x.y/z, 30 EUR.", true)
	f.Add("`code` \"Title\" snake_case camelCase", false)
	f.Add(`say "   " now`, false) // a quoted blank was once an empty fact
	f.Add("ORD-55821 never came; DHL-7781-XZ, sk-test-123 and +49 30 1234 5678.", true)
	f.Fuzz(func(t *testing.T, text string, directives bool) {
		_, isJSON := jsonStrings(text)
		for _, fact := range extractFacts(text, directives) {
			if strings.TrimSpace(fact) == "" {
				t.Fatalf("empty fact from %q", text)
			}
			// A fact is a piece of what was said (JSON values are unescaped).
			if !isJSON && !strings.Contains(text, fact) {
				t.Fatalf("fact %q is not a substring of %q", fact, text)
			}
		}
	})
}

// FuzzFactMatches: the kinds run one by one, gated and windowed, find
// what one alternation of them all finds.
func FuzzFactMatches(f *testing.F) {
	f.Add("Order #4512 for Matt Patterson on 7 May 2023, May 7, 2023 at https://x.y/z, $ 30 or 12 percent.")
	f.Add("2026-05-12 10:00:00Z user_id fooBar A123 `code here` \"Quoted Title\" me@x.org v2.3")
	f.Add("Turn 12 of conversation 345: we discussed the trip to Lisbon, order #4012 and the budget.")
	f.Fuzz(func(t *testing.T, text string) {
		got, want := factMatches(text), oneFactRE().FindAllStringIndex(text, -1)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("factMatches(%q)\n got %v\nwant %v", text, got, want)
		}
	})
}

func BenchmarkExtractFacts(b *testing.B) {
	text := "Turn 12 of conversation 345: we discussed the trip to Lisbon, order #4012 and the budget."
	for b.Loop() {
		extractFacts(text, true)
	}
}
