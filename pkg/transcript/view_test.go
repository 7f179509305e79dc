package transcript

import (
	"slices"
	"testing"
)

// ViewFilter, fed from the latest summary on or from the start, sorts
// records as BuildView does and names the first message sent.
func TestViewFilter(t *testing.T) {
	roles := []Role{RoleSystem, RoleUser, RoleAssistant, RoleSummary, RoleSystem, RoleUser, RoleTool, RoleAssistant}
	var f ViewFilter
	var got []ViewPart
	for _, r := range roles {
		got = append(got, f.Add(r))
	}
	want := []ViewPart{ViewSystem, ViewFirst, ViewMessage, ViewSummary, ViewSystem, ViewFirst, ViewMessage, ViewMessage}
	if !slices.Equal(got, want) {
		t.Fatalf("parts %v, want %v", got, want)
	}
	if f.Sent() != 3 {
		t.Errorf("sent %d, want 3", f.Sent())
	}
	for p, sent := range map[ViewPart]bool{ViewSystem: false, ViewSummary: false, ViewFirst: true, ViewMessage: true} {
		if p.Sent() != sent {
			t.Errorf("%d.Sent() = %v", p, p.Sent())
		}
	}

	var recs []Record
	for i, r := range roles {
		recs = append(recs, Record{ID: string(rune('a' + i)), Message: Message{Role: r}})
	}
	v := BuildView(recs)
	if v.System.ID != "e" || v.Summary.ID != "d" || len(v.Messages) != 3 || v.Messages[0].ID != "f" {
		t.Errorf("view: system %s summary %s messages %v", v.System.ID, v.Summary.ID, v.Messages)
	}
	if i := FirstSent(recs); i != 5 {
		t.Errorf("first sent %d, want 5", i)
	}
	if i := FirstSent(recs[:1]); i != -1 {
		t.Errorf("first sent of a system prompt alone: %d", i)
	}
}
