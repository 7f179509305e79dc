package sqlstore

// A fork inside the store in the dialect's own SQL (PostgreSQL): one
// INSERT ... SELECT rewrites every body in the statement, one UPDATE
// remaps the summaries. Nothing passes through this process.

import (
	"context"
	"fmt"
	"strings"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// StatementForker is a SetForker that forks in SQL of its own, the bodies
// rewritten by the database's JSON functions to the bytes ForkBody and
// ForkRemap give.
type StatementForker interface {
	// ForkStatement copies the records of conversation ?1 placed at or
	// before (?3, ?4) into ?2 (?5: ?2 as a JSON string) in transcript
	// order, the n-th (from 1) with the id id(n) and seq n, its docid as
	// the search index's docid value gives, its body as ForkBody's with summaryIds as they
	// were. Its one row: the records written, the longest body.
	ForkStatement(id func(n string) string) string
	// ForkRemap maps the summaryIds of ?2's summaries, as ForkRemap with
	// each record of ?1 to the copy at its place in ?2.
	ForkRemap() string
}

// forkStatement is forkSet for a StatementForker.
func (s *Store) forkStatement(ctx context.Context, tx conn, f StatementForker, src, dst string, end store.Place, ids *transcript.IDs) (int64, error) {
	if len(dst) > transcript.MaxConversationBytes || strings.IndexByte(dst, 0) >= 0 {
		return 0, errForkInGo // the record by record fork says what is wrong
	}
	run := ids.Run(s.nowMillis())
	var n, longest int64
	if err := tx.QueryRowContext(ctx, f.ForkStatement(run.SQL), src, dst, end.Pos, end.Sub,
		string(transcript.AppendString(nil, dst))).Scan(&n, &longest); err != nil {
		return 0, fmt.Errorf("fork %q to %q: %w", src, dst, err)
	}
	// A body within the limit holds a record within it (RecordSize counts
	// part of the body); past it, the record by record fork checks each.
	if longest > transcript.MaxRecordBytes {
		return 0, errForkInGo
	}
	if _, err := tx.ExecContext(ctx, f.ForkRemap(), src, dst); err != nil {
		return 0, fmt.Errorf("fork %q to %q: the summaries: %w", src, dst, err)
	}
	return n, nil
}
