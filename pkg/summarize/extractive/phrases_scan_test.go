package extractive

import (
	"slices"
	"strings"
	"testing"
)

// splitPhrases must cut every text as it did before it was made to spare
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
	if got, want := splitPhrases(text), splitPhrasesReference(text); !slices.Equal(got, want) {
		t.Fatalf("splitPhrases(%q)\n got %+v\nwant %+v", text, got, want)
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
		checkFieldTokens(t, field)
	}
}

func checkFieldTokens(t *testing.T, field string) {
	t.Helper()
	got, want := appendFieldTokens(nil, field), fieldTokensReference(field)
	if len(got) != len(want) {
		t.Fatalf("fieldTokens(%q)\n got %+v\nwant %+v", field, got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		// Punctuation is only compared with ASCII marks: its text may
		// differ where an invalid byte stands (U+FFFD before).
		same := g.word == w.word && (g.text == w.text || !g.word &&
			(g.text == ",") == (w.text == ",") && strings.ContainsAny(g.text, ".!?:") == strings.ContainsAny(w.text, ".!?:"))
		if !same {
			t.Fatalf("fieldTokens(%q)\n got %+v\nwant %+v", field, got, want)
		}
	}
}

// scanSeeds are texts from the other tests, and shapes that tell the
// scanners' choices apart: where an expression could backtrack, stop at
// a boundary or not, or fold case.
func scanSeeds() []string {
	seeds := []string{
		"", " ", "\n", "a", "A", "\xff", "a\xffb", "\xe2\x80", "“", "”", "€", "£5", "€ 5", "$", "$ ", "$\t9",
		"Order #4512 for Matt Patterson on 7 May 2023, May 7, 2023 at https://x.y/z, $ 30 or 12 percent.",
		"2026-05-12 10:00:00Z user_id fooBar A123 `code here` \"Quoted Title\" me@x.org v2.3",
		"Turn 12 of conversation 345: we discussed the trip to Lisbon, order #4012 and the budget.",
		"Please never book over 30 EUR. Order #4512 for Matt Patterson ships 2026-05-12 or 7 May 2023; see https://x.example/a?b=1. Config key user_id and fooBar, build A123. I have 2 ideas and 4 years of it.",
		"`code` \"Title\" snake_case camelCase", `say "   " now`,
		"ORD-55821 never came; DHL-7781-XZ, sk-test-123 and +49 30 1234 5678.",
		`{"name": "Widget Pro", "price": 12.5, "sku": "WID-0042", "in_stock": true}`,
		`He only said "   " and left. Then "" again.`, "Perfect! Keep it up! 100 % agree. Wow!",
		"Thanks, Mell! See you soon, Caro. Hey Caro, so Brave of you!", "kids' books, the dogs’ bowls, 'Sandals' Mel, s' x", "'The Goonies' yesterday, ‘Friends’ so, 'cause dogs' toys", "**Perfect**, that works. _Great_ news.",
		"**Install** the `pkg`, (`x=1`), `a b`, ``, `` `, `²`.\n```go\nx := 1\n```\n  ~~~\nunclosed fence",
		"Dr. Smith and Mr. Brown at St. Mary's; Tupac and Dr. Dre; J.K. Rowling; U.S. Army; Plan B. Then; Dr. Dr. Mrs. x; A.B.C.D. Eve",
		`We sang "Bring it on Home", "wow" by me, "Brave" by Sara, (“Monster Hunter: World”) and "a b c d e f g h i j k l m n o`,
		`{"sku": "WID-0042", "url": "https://x.example/p/42?ref=a"}`, "[1, \"two\", {\"b\": \"Bank of America\"}]",
		// URLs: trailing marks, quotes and brackets end them.
		"https://a.b/c?d=1&e=2#f).", "http://x.", "https://x", "see (https://x.y/z), or http://q.r/s!", "https://.,;:!?x",
		"httpss://x.y", "http:/x", "hhttps://x.y/z", "https://ü.example/ä?ö=1", "https://x\xffy",
		// e-mails
		"anna.berg+travel@example.co.uk", "a@b", "a@b.", "a@b.c.", ".@x.y", "a@b@c.d", "x@-.-", "2023-05-01@x.com",
		// IBANs and phones
		"DE89 3704 0044 0532 0130 00", "DE89370400440532013000", "GB29 NWBK 6016 1331 9268 19", "DE89 3704", "DE89 3704 0044 0",
		"DE89 3704 0044 05321", "DE89 3704 0044 0532_", "+49 30 1234 5678", "+1 (555) 123-4567", "+4930123", "+1 2", "+1-2-3-4-5-6-7-8",
		"+12345 6", "+1 (123456) 7 8", "+1..2", "+1 (1) (2)", "+(1) 2 3",
		// dates and times
		"2026-05-12", "2026-05-12T08:40", "2026-05-12 08:40:59Z", "2026-05-12T08:40Zx", "2026-05-12T08:40:5", "12026-05-12",
		"9 May 2026", "1st June, 2024", "22nd Sept 2021", "3 September 2020", "3 Sep 20201", "7 Mayo 2023", "31 Dec, 1999",
		"May 7, 2023", "June 1st 2024", "Sept 22, 2021", "September 3,2020", "Jan 12, 20234", "Junee 1, 2020",
		"12/05/2026", "1/2/34", "12/05/202", "123/4/56", "1/2/3", "08:40", "8:40 pm", "8:40PM", "08:40:30 am", "8:40 pmx",
		"12:345", "123:45", "8:4", "1:23:4",
		// versions and paths
		"v1.22.3", "v2", "v1-beta.2", "v1.2.x", "v1.2.3.4.5.6-rc.1_", "1.22.3", "1.2.3-rc1", "1.2", "1.2.3.4", "v1x", "v1.2-",
		"/etc/convo/config.yaml", "pkg/summarize/facts.go", "~/x/y", "~/x", "a/b", "/a", "//a/b", "x/y/", "a/b/c.go/d",
		"a-b/c.d/e.goo", "a/b.c/d", "-x/y.z", "_a/b.c", "a/b.123456789", "a/b.12345678", "a/b.c_", "a/b.c-d", "x/y.z/w/v.u/t",
		"a+/b/c", "ab/cd/ef/gh", "a-b-c/d.e", "x/.y/z.go",
		// backticks, quotes, snake and camel case, numbers
		"`a`", "`ab`", "`" + strings.Repeat("x", 60) + "`", "`" + strings.Repeat("x", 61) + "`", "`é`", "`a\nb`",
		`"ab"`, `"abc"`, "“abc”", "“ab”", "“a\"b”", `"a“b”c"`, `"key": "value"`, "“” “ ”",
		"user_id", "a_b_", "a_b__c", "_a_b", "a1_b", "fooBar", "fooBar_", "fBar9", "foo9Bar", "fooB-ar",
		"#123", "#12a", "#", "#1_", "$1,250.00", "129.90 EUR", "EUR 129.90", "30 EUR", "5%", "5 %", "5 percent", "5 PERCENT",
		"5Percent", "20 °C", "20°F", "20 °x", "1,2,3,4", "1.", "1.5.", "40, seat 14A", "4 years", "55821 never", "12 USD,",
		"ab 123", "ABCD 123", "aABC 12", "12abc", "4B", "14A", "123-ABC", "1-2-3", "1_2_a", "1-a-b_c-", "a-1", "a-b-c1", "a_1-b",
		"x1-y_z-", "A-B-C", "ab12-", "sk-test-123", "AF-20418", "ORD-55821.", "ORD-55821-", "a-b-c-d-e-f", "1-2-3-4-5-6",
		"9" + strings.Repeat("-9", 40) + "x", strings.Repeat("a-", 50) + "1",
		// long tokens with many matches in them
		"1.2.3.4.5.6.7.8.9.10.11", "v1.v2.v3.v4", "iVBORw0KGgo+AAAANSUhEUgAAAAEAAAAB/CAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
		"a1:b2@c3_d4+e5/f6-g7.h8", "x-1.y-2. z-3", "1é2é3", "1\xff2.3\xe2\x82.4", "ä1.ö2.ü3",
		// names, contractions, directives
		"I met Matt Patterson at the Bank of America.", "Oliver's dog", "Oliver’s", "Jones'", "Jones' dog", "O'Neil",
		"It's Mary's", "We saw The Great Gatsby and the Sound of Music", "Hey Caro,", "Thanks, Mell!", "Dear John",
		"Anna and Bob of the North", "Anna of", "Anna of Bob", "Anna of the", "Über Émile", "İstanbul and Kelvin",
		"Please always use metric units.", "don't call me late", "Dont do that.", "do not forget the milk", "Caroline: never again please",
		"ſtop sending mail.", "\u212aeep the receipts!", "I'd like you to write shorter answers.", "Id like you to stop.",
		"i prefer tea over coffee.", "from now on, answer in French", "user: please keep it short", "ab_1: stop it now",
		"\u212a: stop it now", "Remember the milk!!! Then go.", "x...y", "a!?b", "...", "a.\nb", "a.\vb", "wait. . . what?",
		// phrases
		"I joined a nearby church yesterday. So far it's been really great!", "Hey Caroline! Painting looks great.",
		"Thanks, Mel. Sweet! Congrats Caroline, love you, Jo.", "I don't eat meat, not even fish. No worries!",
		"I moved from Stockholm, Sweden.", "I see them at least once a week.",
		"see https://example.com/a_b?x=1, then edit main.go and v2.3.1 for $30",
		`My favorite book is "The Great Gatsby" by F. Scott Fitzgerald.`,
		"Caroline: I'm going to the LGBTQ center on 7 May 2023, it's sci-fi night!",
		"Wow, that's so cool! Thanks, I am glad you did.", "first line\nSecond line",
		"a\u00a0b\u2019s — ‘quoted’ … ¿qué? 7 May 2023 $30 #12 @me", "I’VE BEEN THERE", "İ think so", "I'M HERE", "a\\b c`d",
		"x.y .x x. 3.5", "--, ## a.b.", "aB Ab AB ab", "08:40, 1,000 a:b 1:a", "it’s O’Neil’s", "ÀB àB",
		"\u212aelvin", "\u212a", "Straße STRASSE", "ǅemal", "ᾈ", "a\xff'b", "\xffA\xffb", "e\u0301",
	}
	for _, f := range strings.Fields("ORD-55821 DHL-7781-XZ sk-test-123 anna.berg+travel@example.co.uk https://shop.example.com/orders/55821?tab=tracking&lang=en $1,250.00 2026-05-12 08:40 v1.22.3 /etc/convo/config.yaml pkg/summarize/facts.go") {
		seeds = append(seeds, f, f+" never arrived.", "The one I mean is "+f+", as I said.", "("+f+")")
	}
	return seeds
}
