package search

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

func words(text string) []string {
	var ws []string
	Words(text, func(w Word) { ws = append(ws, w.Term) })
	return ws
}

func TestWords(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"order ORD-55821 shipped.", []string{"order", "ord-55821", "shipped"}},
		{"mail ann.lee@example.com now", []string{"mail", "ann.lee@example.com", "now"}},
		{"cat /usr/local/bin/convo", []string{"cat", "usr/local/bin/convo"}},
		{"-5 --flag a- -b", []string{"5", "flag", "a", "b"}},
		{"東京都 ok", []string{"東", "京", "都", "ok"}},
		{"café Ünïcödé", []string{"café", "ünïcödé"}},
		{"", nil},
		{"!!! ... ---", nil},
	} {
		if got := words(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestTermsHoldWholeAndParts(t *testing.T) {
	got := Terms("mail ann.lee@example.com about ORD-55821")
	for _, want := range []string{"mail", "ann.lee@example.com", "ann.lee", "example.com", "ann", "lee", "example", "com", "ord-55821", "ord", "55821"} {
		if !slices.Contains(got, want) {
			t.Errorf("Terms lacks %q: %q", want, got)
		}
	}
	if len(got) != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
		t.Errorf("Terms repeats a term: %q", got)
	}
}

// TestTermsAreStored pins what Terms makes. SQLite's index keeps no copy
// of its entries: it deletes one with the terms its record makes again,
// so a store's entries must be what today's Terms makes of them.
func TestTermsAreStored(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"Where is my order ORD-55821? Mail ann.lee@example.com",
			[]string{"where", "is", "my", "order", "ord-55821", "ord", "55821", "mail", "ann.lee@example.com", "ann.lee", "example.com", "ann", "lee", "example", "com"}},
		{`run C:\Temp\it's /usr/local/bin/go test ./... -run=TestX`,
			[]string{"run", `c:\temp\it`, "c", "temp", "it", "s", "usr/local/bin/go", "usr", "local", "bin", "go", "test", "run=testx", "testx"}},
		{"Déjà vu in 東京, x.y-z and snake_case",
			[]string{"déjà", "vu", "in", "東", "京", "x.y-z", "x", "y", "z", "and", "snake_case", "snake", "case"}},
	} {
		if got := Terms(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Terms(%q) = %q, was %q.\nA change to the terms needs a store migration that indexes every record again "+
				"(as pkg/store/sqlite/migrations/0011_search_index.sql does): SQLite deletes an entry by its terms.", tt.text, got, tt.want)
		}
	}
}

func TestTermLimits(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	ws := words(long)
	if len(ws) != 1 || len(ws[0]) > MaxTermBytes || !utf8.ValidString(ws[0]) {
		t.Fatalf("a long word: %d bytes, valid %v", len(ws[0]), utf8.ValidString(ws[0]))
	}
	var b strings.Builder
	for i := range 100000 {
		b.WriteString("w")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(strings.Repeat("0", i%50))
		b.WriteByte(' ')
	}
	n := 0
	for _, term := range Terms(b.String()) {
		n += len(term) + 1
	}
	if n > MaxRecordTermBytes {
		t.Errorf("terms of one record take %d bytes, over %d", n, MaxRecordTermBytes)
	}
}

func TestText(t *testing.T) {
	r := transcript.Record{ID: "01JRZJ166J2WRMF990535EVSQS", Message: transcript.Message{Role: "assistant",
		Contents:  []string{"let me look"},
		ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"location":"Paris"}`}}}}
	terms := RecordTerms(&r)
	for _, want := range []string{"let", "get_weather", "weather", "location", "paris"} {
		if !slices.Contains(terms, want) {
			t.Errorf("lacks %q: %q", want, terms)
		}
	}
	for _, not := range []string{"call_1", "01jrzj166j2wrmf990535evsqs"} {
		if slices.Contains(terms, not) {
			t.Errorf("indexes the id %q", not)
		}
	}
	tool := transcript.Record{Message: transcript.Message{Role: "tool", Name: "grep", ToolCallID: "call_1", Contents: []string{"3 lines"}}}
	if got := RecordTerms(&tool); !slices.Contains(got, "grep") || slices.Contains(got, "call_1") {
		t.Errorf("tool result terms %q", got)
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"hello world", `"hello" "world"`},
		{`"exact phrase" word`, `"exact phrase" "word"`},
		{"timeout -retry", `"timeout" -"retry"`},
		{"a b OR c", `"a" "b" OR "c"`},
		{"ord* ORD-55821", `"ord"* "ord-55821"`},
		{`-"two words" x`, `-"two words" "x"`},
		{"a,b", `"a b"`},
		{`"unclosed phrase`, `"unclosed phrase"`},
		{"x or y", `"x" "or" "y"`},
		{`"pre fix"*`, `"pre fix"*`},
		{"a AND b", `"a" "b"`},
		{"x a OR b AND c", `"x" "a" OR "b" "c"`},
		{"a AND -b", `"a" -"b"`},
		{`"AND" and`, `"and"`}, // a repeated clause once
		{"l* x l* l* -y -y x", `"l"* "x" -"y"`},
		{"a b OR c c OR b", `"a" "b" OR "c" "c" OR "b"`}, // OR's sides as written
	} {
		q, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"AND a", "a AND", "a AND AND b", "a OR AND b", "a AND OR b", "", "   ", "-x", "OR a", "a OR", "a OR OR b", "a OR -b", "! OR a", "a OR !", "\u00a0", "-\u00a0", "!!!", strings.Repeat("a ", MaxQueryBytes)} {
		if q, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %s, want an error", bad, q)
		}
	}
}

// TestParseDropped: a query whose every token holds no word says what was
// dropped and why, not that it excluded anything it did not.
func TestParseDropped(t *testing.T) {
	for _, tt := range []struct{ in, want, not string }{
		{"🚀", `"🚀" dropped, holding no word`, "excluded"},
		{`"`, `"\"" dropped`, "excluded"},
		{"*", `"*" dropped`, "excluded"},
		{"(", `"(" dropped`, "excluded"},
		{"( -x", `"(" dropped`, "excluded words alone"},
		{"-x", "excluded words alone", "dropped"},
		{"", "the query is empty", "excluded"},
		{"   ", "the query is empty", "excluded"},
	} {
		_, err := Parse(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), tt.not) {
			t.Errorf("Parse(%q): %v, want %q and not %q", tt.in, err, tt.want, tt.not)
		}
	}
}

// TestDroppedList: what a query dropped, quoted for people, in order.
func TestDroppedList(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"deploy", ""},
		{"deploy 🚀", `"🚀"`},
		{`deploy * 🚀 "`, `"*", "🚀", "\""`},
	} {
		q, err := Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.DroppedList(); got != tt.want {
			t.Errorf("Parse(%q).DroppedList() = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	text := "Your order ORD-55821 shipped to ann.lee@example.com; see /var/log/app.log\nretry later"
	d := NewDoc(text)
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"ord-55821", true},
		{"ORD-55821", true},
		{"55821", true},
		{"ord", true},
		{"5582", false},
		{"5582*", true},
		{"ann.lee@example.com", true},
		{"example.com", true},
		{"/var/log/app.log", true},
		{"app.log", true},
		{`"order ord-55821 shipped"`, true},
		{`"order shipped"`, false},
		{`"ord 55821"`, false},
		{"order -retry", false},
		{"order -refund", true},
		{`order -"retry later"`, false},
		{`order -"later retry"`, true},
		{"refund OR retry", true},
		{"refund OR cancel", false},
		{"shipped refund OR later", true},
		{`"/var/log/app.log retry"`, true}, // lines are one text
		{`"log retry"`, false},
		{`"shipped t"*`, true},
	} {
		q, err := Parse(tt.q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.q, err)
		}
		if got := q.Match(d); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	text := strings.Repeat("filler words here ", 20) + "the courier reference is ORD-55821\nand more " + strings.Repeat("tail ", 40)
	q, _ := Parse("55821")
	sn := q.Snippet(NewDoc(text))
	if !strings.HasPrefix(sn.Text, "…") || !strings.HasSuffix(sn.Text, "…") || strings.Contains(sn.Text, "\n") {
		t.Errorf("snippet %q", sn.Text)
	}
	if len(sn.Marks) != 1 || sn.Text[sn.Marks[0][0]:sn.Marks[0][1]] != "ORD-55821" {
		t.Errorf("marks %v in %q", sn.Marks, sn.Text)
	}
	q, _ = Parse(`"courier reference"`)
	sn = q.Snippet(NewDoc(text))
	if len(sn.Marks) != 2 || sn.Text[sn.Marks[0][0]:sn.Marks[0][1]] != "courier" {
		t.Errorf("phrase marks %v in %q", sn.Marks, sn.Text)
	}
}

func TestRank(t *testing.T) {
	q, _ := Parse("deploy")
	docs := []*Doc{NewDoc("we talked about lunch and then deploy once among many many other words here"), NewDoc("deploy deploy deploy")}
	if got, _ := q.Rank(docs); got[0] != 1 {
		t.Errorf("Rank = %v, want the record saying it three times first", got)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"order ORD-55821", "a.b@c.com /usr/bin", "東京 café", "--x-- ..", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Words(s, func(w Word) {
			if w.Term == "" || len(w.Term) > MaxTermBytes || w.Start < 0 || w.End > len(s) || w.Start >= w.End {
				t.Fatalf("word %+v of %q", w, s)
			}
			if strings.ContainsAny(w.Term, " \t\n\"'") {
				t.Fatalf("term %q holds a separator", w.Term)
			}
			// The same word read alone is the same term: a query finds it.
			if again := words(s[w.Start:w.End]); len(again) == 0 || again[0] != w.Term {
				t.Fatalf("word %q reads alone as %q", s[w.Start:w.End], again)
			}
		})
		if len(s) > 2048 {
			return // each term below reads the text again: keep an input cheap
		}
		d := NewDoc(s)
		for _, term := range d.Terms() {
			if q, err := Parse(term); err == nil && !q.Match(d) {
				t.Fatalf("term %q of %q is not found", term, s)
			}
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{`a "b c" -d OR e*`, `"`, "OR", "-", `-"x`, "a OR b OR c"} {
		f.Add(s, "a b c d e")
	}
	f.Fuzz(func(t *testing.T, query, text string) {
		q, err := Parse(query)
		if err != nil {
			return
		}
		// Written back and read again, a query finds the same.
		q2, err := Parse(q.String())
		if err != nil {
			t.Fatalf("%q wrote %q, which does not parse: %v", query, q.String(), err)
		}
		d := NewDoc(text)
		if q.Match(d) != q2.Match(d) {
			t.Fatalf("%q and %q disagree on %q", query, q.String(), text)
		}
		q.Snippet(d)
		_ = q.Index()
	})
}

func BenchmarkTerms(b *testing.B) {
	for _, tt := range []struct{ name, text string }{
		{"chat", "message 1: the quick brown fox jumps over the lazy dog, again and again."},
		{"identifiers", "Where is my order ORD-55821? It was due on Monday; mail ann.lee@example.com or call +1-555-0100. The quick brown fox jumps over the lazy dog."},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.text)))
			var t Termer
			for b.Loop() {
				t.Terms(tt.text)
			}
		})
	}
}

// RecordTerms returns the terms r is indexed by.
func RecordTerms(r *transcript.Record) []string { return Terms(Text(r)) }
