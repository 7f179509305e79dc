package store

import (
	"context"
	"errors"
)

// Lister is the part of a Store that lists its conversations.
type Lister interface {
	Conversations(ctx context.Context, fn func(ConversationInfo) error) error
}

// errStop ends a listing early.
var errStop = errors.New("stop")

// Empty reports whether s holds no conversation; it reads one at most.
func Empty(ctx context.Context, s Lister) (bool, error) {
	none := true
	err := s.Conversations(ctx, func(ConversationInfo) error {
		none = false
		return errStop
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return none, err
}
