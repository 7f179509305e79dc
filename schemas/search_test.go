package schemas

import "testing"

// The schema holds the contract of docs/json-output.md; the real command's
// output is checked against it in TestSearchJSONMatchesSchema.
func TestValidateSearchLine(t *testing.T) {
	rec := `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"demo","message":{"role":"user","contents":["ORD-55821"]},"metadata":{"timing":{"creation":1}}}`
	good := []string{
		`{"record":` + rec + `,"match":{"snippet":"ORD-55821","marks":[[0,9]]}}`,
		`{"record":` + rec + `,"match":{"snippet":"ORD-55821","marks":[],"score":1.5}}`,
	}
	bad := map[string]string{
		"no match":        `{"record":` + rec + `}`,
		"unlisted field":  `{"record":` + rec + `,"match":{"snippet":"x","marks":[]},"new":1}`,
		"mark of three":   `{"record":` + rec + `,"match":{"snippet":"x","marks":[[0,1,2]]}}`,
		"record invalid":  `{"record":{"id":"x","conversation":"demo","message":{"role":"user","contents":["a"]},"metadata":{"timing":{"creation":1}}},"match":{"snippet":"x","marks":[]}}`,
		"snippet missing": `{"record":` + rec + `,"match":{"marks":[]}}`,
	}
	for _, g := range good {
		if err := ValidateSearchLine([]byte(g)); err != nil {
			t.Errorf("valid line rejected: %v\n%s", err, g)
		}
	}
	for name, b := range bad {
		if err := ValidateSearchLine([]byte(b)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
