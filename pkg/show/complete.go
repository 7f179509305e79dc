package show

import (
	"context"
	"slices"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Reader is the part of a store RecentRecords reads.
type Reader interface {
	Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error
}

// RecentRecords lists the ids of conv's newest n records, newest first,
// each with its role after a tab, as a shell completes a RECORD: what
// could be read of them, since a completion has no way to fail.
func RecentRecords(ctx context.Context, s Reader, conv string, n int) []string {
	var ids []string
	var r transcript.Record
	_ = s.Read(ctx, conv, store.ReadOptions{Limit: n}, func(row store.Row) error {
		if transcript.DecodeStored(row.Body, &r) == nil {
			ids = append(ids, r.ID+"\t"+string(r.Message.Role))
		}
		return nil
	})
	slices.Reverse(ids)
	return ids
}
