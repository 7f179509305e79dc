package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// argumentsFault is an oracle for CheckArguments built on encoding/json's
// token stream, not on the strict walker: it names the first thing in a
// that no provider takes back, "" for none.
func argumentsFault(a string) string {
	t := strings.Trim(a, " \t\r\n")
	if t == "" || t[0] != '{' || !json.Valid([]byte(t)) {
		return "not one JSON object"
	}
	if !utf8.ValidString(t) {
		return "invalid UTF-8"
	}
	// encoding/json reads a lone surrogate as U+FFFD: one more U+FFFD in
	// the text read than in the text written (raw or escaped) is one.
	written := strings.Count(t, "\ufffd") + strings.Count(strings.ToLower(t), `\ufffd`)
	read := 0
	dec := json.NewDecoder(strings.NewReader(t))
	type frame struct {
		object bool
		key    bool // the next string token is a key
		keys   map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "token: " + err.Error()
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.object && top.key
		if top != nil && top.object {
			top.key = !top.key
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{object: true, key: true, keys: map[string]bool{}})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].key = true
				}
			}
			if v == '{' || v == '[' {
				if top != nil && top.object {
					top.key = false // the value opened here; its end sets key again
				}
			}
		case string:
			if strings.IndexByte(v, 0) >= 0 {
				return "NUL"
			}
			read += strings.Count(v, "\ufffd")
			if isKey {
				if top.keys[v] {
					return "key twice"
				}
				top.keys[v] = true
			}
		}
	}
	if read > written {
		return "lone surrogate"
	}
	return ""
}

func TestCheckArguments(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{}`, ""},
		{` {"location":"Paris","n":[1,{"a":null}]} `, ""},
		{`{"k":1,"K":2}`, ""}, // user data: keys compared exactly
		{`{"s":"\ud83d\ude00 \\u0000 \ufffd"}`, ""},
		{``, "got nothing"},
		{`   `, "got nothing"},
		{"{}\f", "want a JSON object"}, // JSON's white space only
		{"\u00a0{}", "want a JSON object"},
		{`null`, "want a JSON object"},
		{`""`, "want a JSON object"},
		{`[1]`, "want a JSON object"},
		{`{"a":1}{}`, "want a JSON object"},
		{`{"a":`, "want a JSON object"},
		{`{"a":"\u0000"}`, "at a: contains a NUL character"},
		{"{\"a\":\"\x00\"}", "contains a NUL character"},
		{`{"\u0000":1}`, "contains a NUL character"},
		{`{"a":"\udc00"}`, "at a: lone UTF-16 surrogate"},
		{`{"a":"\ud800x"}`, "lone UTF-16 surrogate"},
		{`{"a":1,"a":2}`, "at a: key given twice"},
		{`{"a":{"b":[{"c":1,"c":1}]}}`, "at a.b[0].c: key given twice"},
		{`{"a":1,"\u0061":2}`, "key given twice"},
		{"{\"a\":\"\xff\"}", "invalid UTF-8"},
		{strings.Repeat(`{"a":`, MaxNesting+1) + "1" + strings.Repeat("}", MaxNesting+1), "nested more than"},
	} {
		err := CheckArguments(c.args)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%.60q: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%.60q: err = %v, want %q", c.args, err, c.want)
		}
		if (err == nil) != (argumentsFault(c.args) == "") && !strings.Contains(c.want, "nested") {
			t.Errorf("%.60q: the oracle says %q", c.args, argumentsFault(c.args))
		}
	}
}

// FuzzCheckArguments: CheckArguments takes exactly what the oracle, built
// on encoding/json's tokens, finds nothing wrong with, and what it takes
// every provider renderer can send as an object.
func FuzzCheckArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"a":"\u0000"}`, `{"a":"\ud800"}`, `{"a":"\ud83d\ude00"}`,
		`{"a":{"b":[1,{"c":"\\u0000"}]}}`, `""`, `null`, `[]`, `{"k":1,"K":2}`, `{"a":"\ufffd"}`, `{"\u0061":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, a string) {
		err := CheckArguments(a)
		if nestedDeeper(a, MaxNesting) {
			if err == nil {
				t.Fatalf("%q: nested too deep, accepted", a)
			}
			return
		}
		if fault := argumentsFault(a); (err == nil) != (fault == "") {
			t.Fatalf("%q: CheckArguments says %v, the oracle %q", a, err, fault)
		}
		if err != nil {
			return
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(a), &v); err != nil || v == nil {
			t.Fatalf("%q accepted, but is no JSON object: %v", a, err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(a)); err != nil {
			t.Fatal(fmt.Errorf("%q accepted, but does not compact: %w", a, err))
		}
	})
}
