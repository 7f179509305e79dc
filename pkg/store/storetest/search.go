package storetest

// Search: what a backend's index finds is what pkg/search's matcher finds
// reading every record, after every kind of write.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// searchAll runs q with o's filters and returns "conv/id" of the hits in
// the order given, failing the test when they are not newest first.
func searchAll(t *testing.T, s store.Store, o store.SearchOptions) []string {
	t.Helper()
	var got []string
	last := int64(1) << 62
	err := s.Search(context.Background(), o, func(h store.SearchHit) error {
		var r transcript.Record
		if err := transcript.DecodeStored(h.Body, &r); err != nil {
			return err
		}
		if r.ID == "" || r.Metadata.Timing.Creation != h.Created || h.Doc == nil {
			return fmt.Errorf("hit %+v: record %s, created %d", h.Row, r.ID, r.Metadata.Timing.Creation)
		}
		if h.Created > last {
			return fmt.Errorf("hit %s created %d after one created %d: not newest first", r.ID, h.Created, last)
		}
		last = h.Created
		got = append(got, h.Conversation+"/"+r.ID)
		return nil
	})
	if err != nil {
		t.Fatalf("Search(%s): %v", o.Query, err)
	}
	return got
}

// bruteForce reads every record of every conversation and keeps those q
// and o's filters match, newest first.
func bruteForce(t *testing.T, s store.Store, o store.SearchOptions) []string {
	t.Helper()
	ctx := context.Background()
	type hit struct {
		key     string
		created int64
	}
	var hits []hit
	var convs []string
	if err := s.Conversations(ctx, func(c store.ConversationInfo) error { convs = append(convs, c.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, c := range convs {
		err := s.Read(ctx, c, store.ReadOptions{}, func(row store.Row) error {
			var r transcript.Record
			if err := transcript.DecodeStored(row.Body, &r); err != nil {
				return err
			}
			cr := r.Metadata.Timing.Creation
			if o.Conversation != "" && c != o.Conversation || o.Role != "" && row.Role != o.Role ||
				o.Since > 0 && cr < o.Since || o.Until > 0 && cr >= o.Until {
				return nil
			}
			if o.Query.Match(search.NewDoc(search.Text(&r))) {
				hits = append(hits, hit{c + "/" + r.ID, cr})
			}
			return nil
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return int(b.created - a.created) })
	if o.Limit > 0 && len(hits) > o.Limit {
		hits = hits[:o.Limit]
	}
	keys := make([]string, len(hits))
	for i, h := range hits {
		keys[i] = h.key
	}
	return keys
}

func mustQuery(t testing.TB, q string) *search.Query {
	t.Helper()
	p, err := search.Parse(q)
	if err != nil {
		t.Fatalf("Parse(%q): %v", q, err)
	}
	return p
}

func appendRecs(t testing.TB, s store.Store, ids *transcript.IDs, conv string, recs ...transcript.Record) {
	t.Helper()
	if _, err := s.Append(context.Background(), conv, ids, transcript.Slice(recs...)); err != nil {
		t.Fatal(err)
	}
}

func at(r transcript.Record, ms int64) transcript.Record {
	r.Metadata.Timing.Creation = ms
	return r
}

// TestSearchFinds: identifiers whole and by parts, tool calls and results,
// phrases, exclusions, the filters, newest first and the limit.
func (x suite) TestSearchFinds(t *testing.T) {
	s := x.open(t)
	ids := transcript.NewIDs()
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	appendRecs(t, s, ids, "support",
		at(exportMsg("user", "Where is order ORD-55821? Mail ann.lee@example.com"), base+1000),
		at(transcript.Record{Message: transcript.Message{Role: "assistant", Contents: []string{"Checking."},
			ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "track_parcel", Arguments: `{"ref":"ORD-55821"}`}}}}, base+2000),
		at(transcript.Record{Message: transcript.Message{Role: "tool", ToolCallID: "call_1", Name: "track_parcel",
			Contents: []string{"in transit, depot /var/spool/depot-7"}}}, base+3000),
		at(exportMsg("assistant", "Your parcel is in transit."), base+4000),
	)
	appendRecs(t, s, ids, "other",
		at(exportMsg("user", "transit strike news"), base+5000),
		at(exportMsg("assistant", "The strike ends Friday."), base+6000),
	)
	count := func(q string, o store.SearchOptions) int {
		o.Query = mustQuery(t, q)
		got := searchAll(t, s, o)
		if want := bruteForce(t, s, o); !slices.Equal(got, want) {
			t.Errorf("%q %+v: got %q, brute force %q", q, o, got, want)
		}
		return len(got)
	}
	for _, tt := range []struct {
		q    string
		o    store.SearchOptions
		want int
	}{
		{"ORD-55821", store.SearchOptions{}, 2}, // the user's text and the tool call's arguments
		{"55821", store.SearchOptions{}, 2},
		{"ann.lee@example.com", store.SearchOptions{}, 1},
		{"example.com", store.SearchOptions{}, 1},
		{"track_parcel", store.SearchOptions{}, 2}, // the call's name and the result's tool name
		{"depot-7", store.SearchOptions{}, 1},
		{"/var/spool", store.SearchOptions{}, 0}, // a path's parts are its names and atoms, not its prefixes
		{"spool", store.SearchOptions{}, 1},
		{"transit", store.SearchOptions{}, 3},
		{"transit -strike", store.SearchOptions{}, 2},
		{`"in transit"`, store.SearchOptions{}, 2},
		{`"transit in"`, store.SearchOptions{}, 0},
		{"strike OR parcel", store.SearchOptions{}, 5}, // parcel: by itself and track_parcel's part
		{"trans*", store.SearchOptions{}, 3},
		{"transit", store.SearchOptions{Conversation: "support"}, 2},
		{"transit", store.SearchOptions{Role: "tool"}, 1},
		{"transit", store.SearchOptions{Since: base + 4000}, 2},
		{"transit", store.SearchOptions{Until: base + 4000}, 1},
		{"transit", store.SearchOptions{Limit: 2}, 2},
		{"call_1", store.SearchOptions{}, 0}, // ids are not indexed
	} {
		if got := count(tt.q, tt.o); got != tt.want {
			t.Errorf("%q %+v: %d hits, want %d", tt.q, tt.o, got, tt.want)
		}
	}
	o := store.SearchOptions{Query: mustQuery(t, "transit"), Limit: 1}
	if got := searchAll(t, s, o); len(got) != 1 || !strings.HasPrefix(got[0], "other/") {
		t.Errorf("the newest hit: %q", got)
	}
}
func (x suite) TestSearchCatchUp(t *testing.T) {
	steps := 150
	if testing.Short() {
		steps = 50
	}
	ctx := context.Background()
	opener := x.backend(t)
	handle := func() store.Store {
		s, err := opener()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s, ro := handle(), handle()
	r, ok := ro.(interface{ SetReadOnly() })
	if !ok {
		t.Fatalf("%T has no SetReadOnly", ro)
	}
	r.SetReadOnly()
	indexer, ok := s.(interface {
		IndexSearch(context.Context, func(done, total int64)) (int64, error)
	})
	if !ok {
		t.Fatalf("%T has no IndexSearch", s)
	}
	h := newSearchHistory(t, s, 47)
	check := func(step int, what string, by store.Store) {
		for range 4 {
			o := h.options(h.queries[h.rng.IntN(len(h.queries))])
			want := bruteForce(t, s, o)
			got := searchAll(t, by, o)
			if !slices.Equal(got, want) {
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("step %d (%s), %s %+v: found %q, a scan %q", step, what, o.Query, o, got, want)
				}
			}
			o.Limit = 1 + h.rng.IntN(3)
			if got := searchAll(t, by, o); len(got) != min(o.Limit, len(want)) {
				t.Fatalf("step %d (%s), %s --limit %d: %q, of all %q", step, what, o.Query, o.Limit, got, want)
			}
		}
	}
	for step := range steps {
		var what string
		switch op := h.rng.IntN(12); {
		case op < 6:
			what = h.write(step)
		case op < 9:
			what = "search (read-only)"
			check(step, what, ro)
		case op < 10:
			what = "search"
			check(step, what, s)
		default:
			what = "index"
			if _, err := indexer.IndexSearch(ctx, nil); err != nil {
				t.Fatalf("step %d: index: %v", step, err)
			}
		}
		if c, ok := s.(interface{ CheckSearchIndex(context.Context) error }); ok {
			if err := c.CheckSearchIndex(ctx); err != nil {
				t.Fatalf("step %d (%s): %v", step, what, err)
			}
		}
	}
	// Caught up, the read-only handle reads the index alone.
	if _, err := indexer.IndexSearch(ctx, nil); err != nil {
		t.Fatal(err)
	}
	check(steps, "caught up", ro)
}
