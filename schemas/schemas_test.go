package schemas

import (
	"strings"
	"testing"
)

func TestValidateRecord(t *testing.T) {
	good := []string{
		`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"demo","message":{"role":"user","contents":["Hi, there","how are you"]},"metadata":{"attribute":["merged"],"timing":{"creation":1744815823058}}}`,
		`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"assistant","contents":[],"tool_calls":[{"id":"call_1","name":"f","arguments":"{}"}]},"metadata":{"timing":{"creation":1}}}`,
		`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"tool","contents":["x"],"tool_call_id":"call_1","name":"f","is_error":true},"metadata":{"timing":{"creation":1}}}`,
		`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"assistant","contents":["42"],"provider_data":[{"provider":"anthropic","at":0,"item":{"type":"thinking","thinking":"Hmm.","signature":"EqQB"}},{"provider":"gemini","at":0,"item":{"text":"42","thoughtSignature":"c2ln"},"replaces":true}]},"metadata":{"timing":{"creation":1}}}`,
		`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"summary","contents":["s"]},"metadata":{"summaryIds":["01JRZJ166HZFPP405DV1QQB2X8"],"timing":{"creation":1,"playStart":2},"aux":{"a":[1,{"b":null}]}}}`,
	}
	bad := map[string]string{
		"unknown role":                `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"robot","contents":["x"]},"metadata":{"timing":{"creation":1}}}`,
		"empty contents":              `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"user","contents":[]},"metadata":{"timing":{"creation":1}}}`,
		"tool without call id":        `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"tool","contents":["x"]},"metadata":{"timing":{"creation":1}}}`,
		"summary without ids":         `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"summary","contents":["s"]},"metadata":{"timing":{"creation":1}}}`,
		"summaryIds on a user":        `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"user","contents":["x"]},"metadata":{"summaryIds":["01JRZJ166HZFPP405DV1QQB2X8"],"timing":{"creation":1}}}`,
		"bad id":                      `{"id":"nope","conversation":"c","message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":1}}}`,
		"unknown timing key":          `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":1,"later":2}}}`,
		"missing creation":            `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"user","contents":["x"]},"metadata":{"timing":{}}}`,
		"extra field":                 `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":1}},"x":1}`,
		"provider data on a user":     `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"user","contents":["x"],"provider_data":[{"provider":"p","at":0,"item":{}}]},"metadata":{"timing":{"creation":1}}}`,
		"provider data not an object": `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"assistant","contents":["x"],"provider_data":[{"provider":"p","at":0,"item":"x"}]},"metadata":{"timing":{"creation":1}}}`,
		"tool calls on a user":        `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"c","message":{"role":"user","contents":["x"],"tool_calls":[{"id":"a","name":"f","arguments":"{}"}]},"metadata":{"timing":{"creation":1}}}`,
	}
	for _, g := range good {
		if err := ValidateRecord([]byte(g)); err != nil {
			t.Errorf("valid record rejected: %v\n%s", err, g)
		}
	}
	for name, b := range bad {
		if err := ValidateRecord([]byte(b)); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("%s: empty error", name)
		}
	}
}

func BenchmarkValidateRecord(b *testing.B) {
	line := []byte(`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"demo","message":{"role":"user","contents":["Hi, there","how are you"]},"metadata":{"attribute":["merged"],"timing":{"creation":1744815823058}}}`)
	for b.Loop() {
		if err := ValidateRecord(line); err != nil {
			b.Fatal(err)
		}
	}
}
