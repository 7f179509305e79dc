package schemas

import "testing"

// The schema holds the contract of docs/json-output.md: what it must refuse
// it refuses. The real command's output is checked against it in cmd
// (TestListJSONMatchesSchema).
func TestValidateListEntry(t *testing.T) {
	good := []string{
		`{"conversation":"demo","records":3,"tokens":3,"created":1,"updated":2,"lastActivity":2,"summaries":0,"afterSummary":3,"exports":[]}`,
		`{"conversation":"demo","records":6,"tokens":12,"created":1,"updated":2,"lastActivity":2,"summaries":1,"latestSummary":"01JRZJ166J2WRMF990535EVSQ4","latestSummaryCreated":4,"afterSummary":2,"exports":[{"sink":"s3","seq":6,"pending":1,"held":true,"updated":1}]}`,
	}
	bad := map[string]string{
		"unlisted field":          `{"conversation":"demo","records":3,"tokens":3,"created":1,"updated":2,"lastActivity":2,"summaries":0,"afterSummary":3,"exports":[],"new":1}`,
		"missing lastActivity":    `{"conversation":"demo","records":3,"tokens":3,"created":1,"updated":2,"summaries":0,"afterSummary":3,"exports":[]}`,
		"missing exports":         `{"conversation":"demo","records":3,"tokens":3,"created":1,"updated":2,"lastActivity":2,"summaries":0,"afterSummary":3}`,
		"exports null":            `{"conversation":"demo","records":3,"tokens":3,"created":1,"updated":2,"lastActivity":2,"summaries":0,"afterSummary":3,"exports":null}`,
		"summary id not a ULID":   `{"conversation":"demo","records":3,"tokens":3,"created":1,"updated":2,"lastActivity":2,"summaries":1,"latestSummary":"x","latestSummaryCreated":4,"afterSummary":3,"exports":[]}`,
		"summary without created": `{"conversation":"demo","records":3,"tokens":3,"created":1,"updated":2,"lastActivity":2,"summaries":1,"latestSummary":"01JRZJ166J2WRMF990535EVSQ4","afterSummary":3,"exports":[]}`,
		"records a string":        `{"conversation":"demo","records":"3","tokens":3,"created":1,"updated":2,"lastActivity":2,"summaries":0,"afterSummary":3,"exports":[]}`,
		"held not a boolean":      `{"conversation":"demo","records":3,"tokens":3,"created":1,"updated":2,"lastActivity":2,"summaries":0,"afterSummary":3,"exports":[{"sink":"s","seq":1,"pending":0,"held":1,"updated":1}]}`,
	}
	for _, g := range good {
		if err := ValidateListEntry([]byte(g)); err != nil {
			t.Errorf("valid line rejected: %v\n%s", err, g)
		}
	}
	for name, b := range bad {
		if err := ValidateListEntry([]byte(b)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
