package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/sqlitetest"
	"github.com/convo-cli/convo/pkg/store/sqlstore"
	"github.com/convo-cli/convo/pkg/transcript"
)

// openStore opens a SQLite store of the test's own.
func openStore(t testing.TB) *sqlstore.Store { return sqlitetest.Open(t) }

// A tool result appended alone, or read on stdin, is judged against the
// stored tail: it must answer the call stored before it.
func TestAppendChecks(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	call := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant,
		ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "f", Arguments: `{}`}}}}
	user := transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"q"}}}
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(user, call)); err != nil {
		t.Fatal(err)
	}
	result := func(id string) *transcript.Record {
		return &transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, ToolCallID: id, Contents: []string{"42"}}}
	}
	for _, tc := range []struct {
		name, conv, id string
		ok             bool
	}{
		{"answers the stored call", "c", "call_1", true},
		{"answers no stored call", "c", "call_9", false},
		{"a conversation with nothing stored", "none", "call_1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckToolResult(ctx, s, tc.conv, result(tc.id)); (err == nil) != tc.ok {
				t.Errorf("CheckToolResult: %v, want ok %v", err, tc.ok)
			}
			line := `{"role":"tool","tool_call_id":"` + tc.id + `","contents":["42"]}` + "\n"
			dec := transcript.NewDecoder(strings.NewReader(line))
			if err := CheckAppend(ctx, s, dec, tc.conv); err != nil {
				t.Fatal(err)
			}
			var recs []transcript.Record
			err := dec.Stream()(func(r *transcript.Record) error { recs = append(recs, *r); return nil })
			if (err == nil) != tc.ok || (tc.ok && len(recs) != 1) || dec.Conversation != tc.conv {
				t.Errorf("decoded %+v, %v, for %q; want ok %v, for %q", recs, err, dec.Conversation, tc.ok, tc.conv)
			}
		})
	}
}
