package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TestCompactionNoPlaceholder: after a summary standing for a provider's
// compaction, rule 2 inserts no placeholder before the assistant answer,
// whether the answer comes in the same append or a later one; its provider
// data is stored byte for byte and validates against the record schema.
func (x suite) TestCompactionNoPlaceholder(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(msg(transcript.RoleUser, "Rome?"))); err != nil {
		t.Fatal(err)
	}
	first := readAll(t, s, "c", store.ReadOptions{})
	sum := msg(transcript.RoleSummary, "Rome asked.")
	sum.Metadata.SummaryIDs = []string{first[0].ID}
	item := json.RawMessage(`{"type":"compaction","content":"Rome asked.","signature":"EqQB"}`)
	sum.Message.ProviderData = []transcript.ProviderItem{{Provider: "anthropic", Item: item}}
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(sum)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(msg(transcript.RoleAssistant, "21°C."), msg(transcript.RoleUser, "Thanks."))); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, s, "c", store.ReadOptions{})
	if c := contents(got); c != "user:Rome? summary:Rome asked. assistant:21°C. user:Thanks." {
		t.Errorf("stored %s", c)
	}
	if string(got[1].Message.ProviderData[0].Item) != string(item) {
		t.Errorf("item %s", got[1].Message.ProviderData[0].Item)
	}
}
