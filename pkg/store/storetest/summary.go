package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// A first summary may cover more records than SQLite binds variables in one
// statement (32,766); its conflict check still sees every covered record.
func (x suite) TestWriteSummaryCoversManyRecords(t *testing.T) {
	const n = 40_000
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	turns := func(yield func(*transcript.Record) error) error {
		for i := range n {
			role := transcript.RoleUser
			if i%2 == 1 {
				role = transcript.RoleAssistant
			}
			r := msg(role, "turn")
			if err := yield(&r); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := s.Append(ctx, "long", ids, turns); err != nil {
		t.Fatal(err)
	}
	var covered []string
	var seq int64
	err := s.Read(ctx, "long", store.ReadOptions{}, func(r store.Row) error {
		if len(covered) < n-2 {
			var rec struct{ ID string }
			if err := json.Unmarshal(r.Body, &rec); err != nil {
				return err
			}
			covered = append(covered, rec.ID)
		}
		seq = max(seq, r.Seq)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	write := func(readSeq int64, coveredIDs []string) error {
		sum := transcript.Record{ID: ids.New(2), Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{"long"}},
			Metadata: transcript.Metadata{SummaryIDs: coveredIDs, Timing: transcript.Timing{Creation: 2}}}
		return s.WriteSummary(ctx, "long", store.SummaryWrite{Anchor: covered[len(covered)-1], Summary: &sum, Check: true, ReadSeq: readSeq})
	}
	// A covered record in the last batch changed after the read: conflict.
	if err := write(seq-3, covered); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a change past the read sequence: %v, want ErrConflict", err)
	}
	// A covered id that is not stored, in the last batch: conflict.
	gone := append(covered[:len(covered):len(covered)], "01JRZJ166J2WRMF990535EVSQS")
	if err := write(seq, gone); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a missing covered record: %v, want ErrConflict", err)
	}
	if err := write(seq, covered); err != nil {
		t.Fatalf("summary of %d records: %v", len(covered), err)
	}
	recs := readAll(t, s, "long", store.ReadOptions{FromLatestSummary: true})
	if len(recs) != 3 || recs[0].Message.Role != transcript.RoleSummary {
		t.Fatalf("after the summary the view starts with %d records, first %s", len(recs), recs[0].Message.Role)
	}
}

// TestWriteSummaryAnchorGone: a planned summary whose anchor another writer
// removed meanwhile (a rewind) is a conflict, not a missing record; an
// unplanned one is still not found.
func (x suite) TestWriteSummaryAnchorGone(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	if _, err := s.Append(ctx, "c", ids, transcript.Slice(msg("user", "a"), msg("assistant", "b"), msg("user", "c"), msg("assistant", "d"))); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, s, "c", store.ReadOptions{})
	if _, err := s.Rewind(ctx, "c", recs[0].ID, store.RewindOptions{}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	sum := transcript.Record{ID: ids.New(now), Message: transcript.Message{Role: transcript.RoleSummary, Contents: []string{"gist"}},
		Metadata: transcript.Metadata{SummaryIDs: []string{recs[0].ID, recs[1].ID}, Timing: transcript.Timing{Creation: now}}}
	err := s.WriteSummary(ctx, "c", store.SummaryWrite{Anchor: recs[1].ID, Summary: &sum, Check: true, ReadSeq: 1 << 40})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("planned on a removed anchor: %v, want ErrConflict", err)
	}
	if err := s.WriteSummary(ctx, "c", store.SummaryWrite{Anchor: recs[1].ID, Summary: &sum}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unplanned, on a removed anchor: %v, want ErrNotFound", err)
	}
}
