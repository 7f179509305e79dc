package show

import (
	"context"
	"encoding/json"

	"github.com/convo-cli/convo/pkg/store"
)

// StatusReader is the store list --json reads a conversation's status
// from.
type StatusReader interface {
	Status(ctx context.Context, conv string) (store.Status, error)
}

// ListEntry is one line of list --json. Consumers ignore fields they do not
// know; fields are added, never removed or renamed.
type ListEntry struct {
	Conversation string `json:"conversation"`
	Records      int64  `json:"records"`
	Tokens       int    `json:"tokens"`
	Created      int64  `json:"created"`
	Updated      int64  `json:"updated"`
	LastActivity int64  `json:"lastActivity"`
	Summaries    int64  `json:"summaries"`
	// LatestSummary is the id of the latest summary, absent when none.
	LatestSummary        string `json:"latestSummary,omitempty"`
	LatestSummaryCreated int64  `json:"latestSummaryCreated,omitempty"`
	// AfterSummary counts the records after the latest summary (all of
	// them when there is none): what summarize --every looks at.
	AfterSummary int64 `json:"afterSummary"`
	// Exports lists the sinks exported to, each with the records an
	// incremental export would send now.
	Exports []ListExport `json:"exports"`
}

type ListExport struct {
	Sink    string `json:"sink"`
	Seq     int64  `json:"seq"`
	Pending int64  `json:"pending"`
	Held    bool   `json:"held"`
	Updated int64  `json:"updated"`
}

// ListJSON is list --json's line for one conversation.
func ListJSON(ctx context.Context, s StatusReader, c store.ConversationFigures, tokens int) ([]byte, error) {
	st, err := s.Status(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	e := ListEntry{
		Conversation: c.ID, Records: c.Records, Tokens: tokens, Created: c.Created, Updated: c.Updated, LastActivity: c.LastActivity,
		Summaries: st.Summaries, LatestSummary: st.LatestSummary, LatestSummaryCreated: st.LatestSummaryCreated,
		AfterSummary: st.AfterSummary, Exports: []ListExport{},
	}
	for _, x := range st.Exports {
		e.Exports = append(e.Exports, ListExport{x.Sink, x.Seq, x.Pending, x.Held, x.Updated})
	}
	return json.Marshal(e)
}
