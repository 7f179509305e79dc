package schemas

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestAnswer(t *testing.T) {
	a, err := CompileAnswer([]byte(`{"title":"City","type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`))
	if err != nil || a.Title != "City" {
		t.Fatalf("%v %+v", err, a)
	}
	for text, want := range map[string]string{
		`{"city":"Paris"}`:                        "",
		"  ```json\n{\"city\":\"Paris\"}\n```\n ": "",
		"```{\"city\":\"Paris\"}```":              "not JSON", // a fence needs its own lines
		`Paris`:                                   "not JSON",
		`{"city":75}`:                             "does not match:\n- at '/city'",
		`{}`:                                      "missing property 'city'",
	} {
		err := a.Check(text)
		var ae *AnswerError
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", text, err)
		case want != "" && (!errors.As(err, &ae) || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want %q", text, err, want)
		case want == "not JSON" && !ae.NotJSON:
			t.Errorf("%q: NotJSON unset", text)
		}
	}
	for body, want := range map[string]string{
		`{"type": 12}`:                  "not a valid JSON Schema",
		`{"type":`:                      "not JSON",
		`"string"`:                      "not a JSON Schema object",
		`{"$ref":"https://x.test/s"}`:   "only references inside the document", // nothing is fetched
		`{"$ref":"file:///etc/passwd"}`: "only references inside the document",
	} {
		if _, err := CompileAnswer([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// FuzzCompileAnswer: any schema document and any answer give a result or an
// error, never a panic or a hang (a $ref cycle included), and an answer that
// passes is JSON once trimmed and out of its fence.
func FuzzCompileAnswer(f *testing.F) {
	for _, s := range [][2]string{
		{`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, `{"city":"Paris"}`},
		{`{"$defs":{"n":{"type":"array","items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"}`, `[[[]]]`},
		{`{"$ref":"#"}`, `1`},
		{`{"anyOf":[{"type":"integer","minimum":1},{"enum":["a",null]}],"not":{"const":2}}`, `2`},
		{`{"type":"string","pattern":"^(a+)+$","maxLength":3}`, `"aaaa"`},
		{`{"prefixItems":[{"type":"number"}],"items":false,"uniqueItems":true}`, `[1.0, 1]`},
		{`{"additionalProperties":{"multipleOf":0.1},"propertyNames":{"maxLength":2}}`, `{"ab":0.3}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, schema, answer string) {
		a, err := CompileAnswer([]byte(schema))
		if err != nil {
			return
		}
		if a.Check(answer) == nil && !json.Valid([]byte(stripFence(strings.TrimSpace(answer)))) {
			t.Fatalf("schema %s passed %q, which is not JSON", schema, answer)
		}
	})
}
