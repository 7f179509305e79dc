package show

import (
	"context"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
)

// listStore holds figures; a view whose tokens are not kept counts 7.
type listStore struct{ figs []store.ConversationFigures }

func (s listStore) Figures(_ context.Context, _ string, fn func(store.ConversationFigures) error) error {
	for _, c := range s.figs {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func (listStore) ViewTokens(_ context.Context, _, _ string, count func(string, []byte) (int, error)) (int, error) {
	return count("user", []byte("x"))
}

func (listStore) Status(context.Context, string) (store.Status, error) {
	return store.Status{Summaries: 1}, nil
}

func TestList(t *testing.T) {
	fig := func(id string, last, tokens int64, known bool) store.ConversationFigures {
		c := store.ConversationFigures{LastActivity: last, Tokens: tokens, TokensKnown: known}
		c.ID, c.Records = id, 2
		return c
	}
	s := listStore{[]store.ConversationFigures{fig("new\x1b", 2000, 5, true), fig("old", 1000, 0, false)}}
	const header = "CONVERSATION  RECORDS  TOKENS  LAST ACTIVITY\n"
	for _, tc := range []struct {
		name   string
		l      List
		s      ListStore
		want   string
		counts int // how often the tokenizer is loaded
	}{
		{"no store", List{}, nil, header, 0},
		{"table", List{}, s, header + "new\\x1b       2        5       1970-01-01T00:00:02Z\nold           2        7       1970-01-01T00:00:01Z\n", 1},
		{"since", List{Since: 1500}, s, header + "new\\x1b       2        5       1970-01-01T00:00:02Z\n", 0},
		{"before", List{Before: 2000}, s, header + "old           2        7       1970-01-01T00:00:01Z\n", 1},
		{"json", List{JSON: true, Since: 2000}, s, `{"conversation":"new\u001b","records":2,"tokens":5,"created":0,"updated":0,"lastActivity":2000,"summaries":1,"afterSummary":0,"exports":[]}` + "\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loads := 0
			tc.l.Count = func() (func(string, []byte) (int, error), error) {
				loads++
				return func(string, []byte) (int, error) { return 7, nil }, nil
			}
			var out strings.Builder
			if err := tc.l.Print(context.Background(), tc.s, &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want || loads != tc.counts {
				t.Errorf("got %q (tokenizer loaded %d times)\nwant %q (%d)", out.String(), loads, tc.want, tc.counts)
			}
		})
	}
}
