package store

import (
	"context"
	"errors"
	"testing"
)

// lister lists ids, or fails with err; read counts what fn was given.
type lister struct {
	ids  []string
	err  error
	read int
}

func (l *lister) Conversations(_ context.Context, fn func(ConversationInfo) error) error {
	if l.err != nil {
		return l.err
	}
	for _, id := range l.ids {
		l.read++
		if err := fn(ConversationInfo{ID: id}); err != nil {
			return err
		}
	}
	return nil
}

func TestEmpty(t *testing.T) {
	broken := errors.New("broken")
	for _, tc := range []struct {
		name  string
		l     *lister
		empty bool
		err   error
		read  int
	}{
		{"none", &lister{}, true, nil, 0},
		{"some: one read", &lister{ids: []string{"a", "b", "c"}}, false, nil, 1},
		{"a failed listing", &lister{err: broken}, true, broken, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			empty, err := Empty(context.Background(), tc.l)
			if empty != tc.empty || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) || tc.l.read != tc.read {
				t.Errorf("Empty = %v, %v after %d read; want %v, %v after %d", empty, err, tc.l.read, tc.empty, tc.err, tc.read)
			}
		})
	}
}
