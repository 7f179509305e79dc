package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
	"github.com/convo-cli/convo/schemas"
)

func msg(role transcript.Role, contents ...string) transcript.Record {
	return transcript.Record{Message: transcript.Message{Role: role, Contents: contents}}
}

func readAll(t testing.TB, s store.Store, conv string, opt store.ReadOptions) []transcript.Record {
	t.Helper()
	var out []transcript.Record
	err := s.Read(context.Background(), conv, opt, func(r store.Row) error {
		if err := schemas.ValidateRecord(r.Body); err != nil {
			t.Errorf("stored record does not validate: %v\n%s", err, r.Body)
		}
		var rec transcript.Record
		if err := json.Unmarshal(r.Body, &rec); err != nil {
			return err
		}
		out = append(out, rec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func contents(recs []transcript.Record) string {
	var parts []string
	for _, r := range recs {
		parts = append(parts, string(r.Message.Role)+":"+strings.Join(r.Message.Contents, "+"))
	}
	return strings.Join(parts, " ")
}

func (x suite) TestAppendAcrossCallsMergesAndFakes(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	for _, r := range []transcript.Record{msg("assistant", "Hello!"), msg("user", "Hi, there"), msg("user", "how are you"), msg("assistant", "I am fine,", "and you?")} {
		if _, err := s.Append(ctx, "demo", ids, transcript.Slice(r)); err != nil {
			t.Fatal(err)
		}
	}
	got := readAll(t, s, "demo", store.ReadOptions{})
	if want := "user:... assistant:Hello! user:Hi, there+how are you assistant:I am fine,+and you?"; contents(got) != want {
		t.Fatalf("got %s\nwant %s", contents(got), want)
	}
	if got[2].Merges() != 1 || !got[0].IsFake() {
		t.Fatalf("attributes: %v %v", got[0].Metadata.Attribute, got[2].Metadata.Attribute)
	}
}

func (x suite) TestAppendBatchIsAllOrNothing(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	if _, err := s.Append(ctx, "c", ids, transcript.Slice(msg("user", "keep me"))); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, s, "c", store.ReadOptions{})
	bad := errors.New("line 3 is bad")
	n := 0
	_, err := s.Append(ctx, "c", ids, func(yield func(*transcript.Record) error) error {
		for {
			n++
			if n == 3 {
				return bad
			}
			r := msg("assistant", fmt.Sprint(n))
			if err := yield(&r); err != nil {
				return err
			}
		}
	})
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v", err)
	}
	if after := readAll(t, s, "c", store.ReadOptions{}); !slices.EqualFunc(before, after, func(a, b transcript.Record) bool {
		return string(transcript.AppendJSON(nil, &a)) == string(transcript.AppendJSON(nil, &b))
	}) {
		t.Fatalf("store changed by a failed batch: %s", contents(after))
	}
	// The counters did not move either: the next append continues cleanly.
	res, err := s.Append(ctx, "c", ids, transcript.Slice(msg("assistant", "ok")))
	if err != nil || res.FromSeq != 1 || res.ToSeq != 2 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func (x suite) TestAppendIdempotentIDs(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	a := msg("user", "one")
	a.ID = "01JRZJ166HZFPP405DV1QQB2X8"
	b := msg("user", "two") // merged into a: its id is remembered
	b.ID = "01JRZJ166J2WRMF990535EVSQS"
	res, err := s.Append(ctx, "c", ids, transcript.Slice(a, b))
	if err != nil || res.Inserted != 1 || res.Merged != 1 {
		t.Fatalf("res %+v err %v", res, err)
	}
	res, err = s.Append(ctx, "c", ids, transcript.Slice(a, b, a))
	if err != nil || res.Skipped != 3 || res.ToSeq != 0 {
		t.Fatalf("retry: res %+v err %v", res, err)
	}
	if got := contents(readAll(t, s, "c", store.ReadOptions{})); got != "user:one+two" {
		t.Fatalf("got %s", got)
	}
}

func (x suite) TestReadOptions(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	tick := int64(1000)
	setNow(t, s, func() time.Time { tick += 10; return time.UnixMilli(tick) })
	var recs []transcript.Record
	for i := range 6 {
		recs = append(recs, msg([]transcript.Role{"user", "assistant"}[i%2], fmt.Sprint(i)))
	}
	if _, err := s.Append(ctx, "c", ids, transcript.Slice(recs...)); err != nil {
		t.Fatal(err)
	}
	all := readAll(t, s, "c", store.ReadOptions{})
	tests := []struct {
		name string
		opt  store.ReadOptions
		want string
	}{
		{"limit", store.ReadOptions{Limit: 2}, "user:4 assistant:5"},
		{"before id", store.ReadOptions{BeforeID: all[2].ID}, "user:0 assistant:1"},
		{"before id and limit", store.ReadOptions{BeforeID: all[4].ID, Limit: 1}, "assistant:3"},
		{"before time", store.ReadOptions{BeforeTime: all[1].Metadata.Timing.Creation}, "user:0"},
		{"change window", store.ReadOptions{AfterSeq: 2, UpToSeq: 4}, "user:2 assistant:3"},
	}
	for _, tt := range tests {
		if got := contents(readAll(t, s, "c", tt.opt)); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	if err := s.Read(ctx, "nope", store.ReadOptions{}, func(store.Row) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing conversation: %v", err)
	}
	if err := s.Read(ctx, "c", store.ReadOptions{BeforeID: "01JRZJ166HZFPP405DV1QQB2X8"}, func(store.Row) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing record: %v", err)
	}
}

func (x suite) TestSummaryPlacementAndView(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	if _, err := s.Append(ctx, "demo", ids, transcript.Slice(msg("assistant", "Hello!"), msg("user", "Hi"), msg("assistant", "Fine"), msg("user", "Good"))); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, s, "demo", store.ReadOptions{})
	span := transcript.SummarySpan(recs, 0)
	sum := transcript.Record{ID: ids.New(1), Message: transcript.Message{Role: "summary", Contents: []string{"they greeted"}},
		Metadata: transcript.Metadata{SummaryIDs: transcript.CoveredIDs(recs, span), Timing: transcript.Timing{Creation: 1}}}
	if err := insertSummary(s, ctx, "demo", recs[span.Anchor].ID, &sum, false); err != nil {
		t.Fatal(err)
	}
	if got, want := contents(readAll(t, s, "demo", store.ReadOptions{})), "user:... assistant:Hello! user:Hi assistant:Fine summary:they greeted user:Good"; got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if got := contents(readAll(t, s, "demo", store.ReadOptions{FromLatestSummary: true})); got != "summary:they greeted user:Good" {
		t.Fatalf("from latest summary: %s", got)
	}
	// The open record is still the user record after the summary: it merges.
	if _, err := s.Append(ctx, "demo", ids, transcript.Slice(msg("user", "again"))); err != nil {
		t.Fatal(err)
	}
	if got := contents(readAll(t, s, "demo", store.ReadOptions{FromLatestSummary: true})); got != "summary:they greeted user:Good+again" {
		t.Fatalf("after merge: %s", got)
	}
	// A second, progressive summary with the originals deleted.
	recs = readAll(t, s, "demo", store.ReadOptions{})
	if _, err := s.Append(ctx, "demo", ids, transcript.Slice(msg("assistant", "ok"))); err != nil {
		t.Fatal(err)
	}
	recs = readAll(t, s, "demo", store.ReadOptions{})
	span = transcript.SummarySpan(recs, 0)
	sum2 := transcript.Record{ID: ids.New(2), Message: transcript.Message{Role: "summary", Contents: []string{"all of it"}},
		Metadata: transcript.Metadata{SummaryIDs: transcript.CoveredIDs(recs, span), Timing: transcript.Timing{Creation: 2}}}
	if sum2.Metadata.SummaryIDs[0] != sum.ID {
		t.Fatalf("progressive summary does not cover the previous one: %v", sum2.Metadata.SummaryIDs)
	}
	if err := insertSummary(s, ctx, "demo", recs[span.Anchor].ID, &sum2, true); err != nil {
		t.Fatal(err)
	}
	// The first summary kept its originals; the second deleted what it covered.
	if got := contents(readAll(t, s, "demo", store.ReadOptions{})); got != "user:... assistant:Hello! user:Hi assistant:Fine summary:all of it" {
		t.Fatalf("after delete-originals: %s", got)
	}
	// Nothing open after a trailing summary: an assistant gets a fake user.
	if _, err := s.Append(ctx, "demo", ids, transcript.Slice(msg("assistant", "more"))); err != nil {
		t.Fatal(err)
	}
	if got := contents(readAll(t, s, "demo", store.ReadOptions{FromLatestSummary: true})); got != "summary:all of it user:... assistant:more" {
		t.Fatalf("after trailing summary: %s", got)
	}
}

func (x suite) TestClear(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	if _, err := s.Append(ctx, "c", transcript.NewIDs(), transcript.Slice(msg("user", "x"))); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Clear(ctx, "c"); err != nil || n != 1 {
		t.Fatalf("n %d err %v", n, err)
	}
	if _, err := s.Clear(ctx, "c"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second clear: %v", err)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentWriters: eight writers, each with its own store handle as
// separate processes would have, append 1,000 single-record transactions
// each, half of them to one shared conversation. No write fails and every
// content string is stored exactly once.
func (x suite) TestConcurrentWriters(t *testing.T) {
	open := x.backend(t)
	ctx := context.Background()
	writers, each := 8, 1000
	if testing.Short() {
		each = 100 // the race detector makes SQLite some 20 times slower
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := open()
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			ids := transcript.NewIDs()
			for i := range each {
				conv := fmt.Sprintf("own-%d", w)
				if w%2 == 0 {
					conv = "shared"
				}
				role := []transcript.Role{"user", "assistant"}[i%2]
				if _, err := s.Append(ctx, conv, ids, transcript.Slice(msg(role, fmt.Sprintf("w%d-m%d", w, i)))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seen := map[string]int{}
	for _, c := range []string{"shared", "own-1", "own-3", "own-5", "own-7"} {
		for _, r := range readAll(t, s, c, store.ReadOptions{}) {
			for _, text := range r.Message.Contents {
				seen[text]++
			}
		}
	}
	for w := range writers {
		for i := range each {
			if k := fmt.Sprintf("w%d-m%d", w, i); seen[k] != 1 {
				t.Fatalf("%s stored %d times", k, seen[k])
			}
		}
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAppendAfter: an append conditioned on the last record writes when it
// is still last, and is ErrConflict, writing nothing, when another writer
// appended, merged into it or cleared the conversation meanwhile.
func (x suite) TestAppendAfter(t *testing.T) {
	s := x.open(t)
	ctx := context.Background()
	ids := transcript.NewIDs()
	if _, err := s.AppendAfter(ctx, "c", store.Last{}, ids, transcript.Slice(msg("user", "first"))); err != nil {
		t.Fatalf("into a new conversation: %v", err)
	}
	last := func() store.Last {
		var l store.Last
		s.Read(ctx, "c", store.ReadOptions{}, func(r store.Row) error {
			var rec struct{ ID string }
			json.Unmarshal(r.Body, &rec)
			l = store.Last{ID: rec.ID, Seq: r.Seq}
			return nil
		})
		return l
	}
	before := last()
	// Another writer merges into the last record: its sequence moves.
	if _, err := s.Append(ctx, "c", ids, transcript.Slice(msg("user", "more"))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendAfter(ctx, "c", before, ids, transcript.Slice(msg("user", "q"), msg("assistant", "a"))); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("after a merge: %v, want ErrConflict", err)
	}
	if got := contents(readAll(t, s, "c", store.ReadOptions{})); got != "user:first+more" {
		t.Fatalf("a refused append wrote: %s", got)
	}
	now := last()
	if _, err := s.AppendAfter(ctx, "c", now, ids, transcript.Slice(msg("assistant", "a"))); err != nil {
		t.Fatalf("with the last record unchanged: %v", err)
	}
	if _, err := s.AppendAfter(ctx, "c", now, ids, transcript.Slice(msg("user", "again"))); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("after an insert: %v, want ErrConflict", err)
	}
	if _, err := s.Clear(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendAfter(ctx, "c", now, ids, transcript.Slice(msg("user", "again"))); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("after a clear: %v, want ErrConflict", err)
	}
}
