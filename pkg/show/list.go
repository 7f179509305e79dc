package show

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

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

// ListStore is the store convo list reads: each conversation's figures,
// its view's tokens when they are not kept, and (--json) its status.
type ListStore interface {
	StatusReader
	Figures(ctx context.Context, key string, fn func(store.ConversationFigures) error) error
	ViewTokens(ctx context.Context, conv, key string, count func(role string, body []byte) (int, error)) (int, error)
}

// List is convo list: the stored conversations, most recently active first,
// as a table for people or one ListJSON line each.
type List struct {
	Key string // the tokenizer whose figures are read
	// Count loads the tokenizer, called only when a view's tokens are not
	// kept and must be counted.
	Count func() (func(role string, body []byte) (int, error), error)
	// Since and Before, when set, keep the conversations last active at or
	// after Since and before Before (ms since the epoch): the last activity
	// is the newest record's creation time.
	Since, Before int64
	JSON          bool
}

// Print writes the list of s's conversations to w; a nil s (no store)
// lists none.
func (l List) Print(ctx context.Context, s ListStore, w io.Writer) error {
	var infos []store.ConversationFigures
	if s != nil {
		// One read of the figures every write keeps, newest activity
		// first: no record is read unless a figure is not up to date.
		err := s.Figures(ctx, l.Key, func(c store.ConversationFigures) error {
			if (l.Since == 0 || c.LastActivity >= l.Since) && (l.Before == 0 || c.LastActivity < l.Before) {
				infos = append(infos, c)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	out := bufio.NewWriterSize(w, 64<<10) // a write per line costs more than the list
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	if !l.JSON {
		fmt.Fprintln(tw, "CONVERSATION\tRECORDS\tTOKENS\tLAST ACTIVITY")
	}
	var count func(role string, body []byte) (int, error)
	for _, c := range infos {
		n := int(c.Tokens)
		if !c.TokensKnown {
			var err error
			if count == nil {
				if count, err = l.Count(); err != nil {
					return err
				}
			}
			if n, err = s.ViewTokens(ctx, c.ID, l.Key, count); err != nil {
				return err
			}
		}
		if l.JSON {
			line, err := ListJSON(ctx, s, c, n)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\n", line)
			continue
		}
		// An id is printed for people: what a terminal would obey in it
		// (an escape sequence, a carriage return) is shown escaped.
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", EscapeID(c.ID), c.Records, n, time.UnixMilli(c.LastActivity).UTC().Format(time.RFC3339))
	}
	return errors.Join(tw.Flush(), out.Flush())
}
