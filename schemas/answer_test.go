package schemas

import (
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
