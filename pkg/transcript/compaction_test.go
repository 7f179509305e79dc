package transcript

import (
	"encoding/json"
	"strings"
	"testing"
)

func compactionSummary(provider, text string) Record {
	r := Record{ID: "01JRZJ166J2WRMF990535EVSR4", Message: Message{Role: RoleSummary, Contents: []string{text},
		ProviderData: []ProviderItem{{Provider: provider, Item: json.RawMessage(`{"type":"compaction","content":null}`)}}}}
	r.Metadata.SummaryIDs = []string{"01JRZJ166J2WRMF990535EVSR1"}
	r.Metadata.Timing.Creation = 1
	return r
}

// TestAppendAfterCompaction: rule 2 inserts no placeholder between a
// provider compaction and the answer after it, whether both arrive in one
// append or the compaction is already stored; after an ordinary summary it
// still does.
func TestAppendAfterCompaction(t *testing.T) {
	now := func() int64 { return 5 }
	answer := Record{Message: Message{Role: RoleAssistant, Contents: []string{"21°C."}}}
	app := NewAppender("c", nil, NewIDs(), now)
	app.Append(Record{Message: Message{Role: RoleUser, Contents: []string{"Rome?"}}})
	app.Append(compactionSummary("anthropic", "Rome asked."))
	if ch := app.Append(answer); len(ch) != 1 || ch[0].Record.Message.Role != RoleAssistant {
		t.Errorf("after a compaction: %d changes, first %+v", len(ch), ch[0].Record.Message)
	}
	stored := compactionSummary("anthropic", "Rome asked.")
	app = NewAppender("c", &stored, NewIDs(), now)
	if ch := app.Append(answer); len(ch) != 1 {
		t.Errorf("after a stored compaction: %d changes", len(ch))
	}
	plain := compactionSummary("anthropic", "Rome asked.")
	plain.Message.ProviderData = nil
	app = NewAppender("c", nil, NewIDs(), now)
	app.Append(plain)
	if ch := app.Append(answer); len(ch) != 2 || !ch[0].Record.IsFake() {
		t.Errorf("after a plain summary: %d changes, want the placeholder first", len(ch))
	}
}

// TestCompactionRecord: only assistant and summary records carry provider
// data; a summary's is one provider's, all at 0; the marker text is no
// readable summary.
func TestCompactionRecord(t *testing.T) {
	ok := compactionSummary("openai-responses", CompactionMarker)
	if err := Validate(&ok); err != nil {
		t.Fatal(err)
	}
	if !ok.IsCompaction() || ok.Readable() || !ok.Unreadable("anthropic") || ok.Unreadable("openai-responses") {
		t.Errorf("marker summary: readable %v", ok.Readable())
	}
	if r := compactionSummary("anthropic", "Rome asked."); !r.Readable() || r.Unreadable("openai") {
		t.Error("a readable compaction read as unreadable")
	}
	// An Anthropic block whose content is null failed (a no-op): the
	// records it covers are sent to anthropic too.
	if r := compactionSummary("anthropic", CompactionMarker); !r.Failed() || !r.Unreadable("anthropic") {
		t.Error("a failed anthropic compaction read as standing for its records")
	}
	for name, change := range map[string]func(r *Record){
		"at":       func(r *Record) { r.Message.ProviderData[0].At = 1 },
		"replaces": func(r *Record) { r.Message.ProviderData[0].Replaces = true },
		"provider": func(r *Record) {
			r.Message.ProviderData = append(r.Message.ProviderData, ProviderItem{Provider: "gemini", Item: json.RawMessage(`{}`)})
		},
		"role": func(r *Record) { r.Message.Role = RoleUser; r.Metadata.SummaryIDs = nil },
	} {
		r := compactionSummary("anthropic", "x")
		change(&r)
		if err := Validate(&r); err == nil || !strings.Contains(err.Error(), "provider_data") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}
