package storetest

// Search: what a backend's index finds is what pkg/search's matcher finds
// reading every record, after every kind of write.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
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
	i := 0
	if _, err := s.Append(context.Background(), conv, ids, func() (transcript.Record, error) {
		if i == len(recs) {
			return transcript.Record{}, io.EOF
		}
		i++
		return recs[i-1], nil
	}); err != nil {
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

// searchHistory makes random writes of every kind (append with merges and
// old creation times, summaries deleting what they cover or not,
// annotations moving a record's time, rewind, fork, clear, prune, copy's
// Load) to a store whose clock it keeps, and the queries and filters that
// search them.
type searchHistory struct {
	t       *testing.T
	s       store.Store
	rng     *rand.Rand
	ids     *transcript.IDs
	clock   int64
	convs   []string
	roles   []transcript.Role
	queries []string
}

func newSearchHistory(t *testing.T, s store.Store, seed uint64) *searchHistory {
	h := &searchHistory{t: t, s: s, rng: rand.New(rand.NewPCG(seed, 0x5eed)), ids: transcript.NewIDs(),
		convs: []string{"c0", "c1", "c2"}, roles: []transcript.Role{"user", "assistant", "user", "assistant", "system"},
		clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()}
	h.queries = []string{"alpha", "beta", "ord-55821", "55821", "ord*", "example.com", "usr", "東京", "déjà", "x.y-z", "y",
		`"alpha beta"`, "alpha -beta", "gamma OR 55822", `beta -"gamma alpha"`, "x* -alpha", "ann@example.com",
		`c:\temp\it`, "temp", "and", `"and or not"`, "c:*"}
	setNow(t, s, func() time.Time { return time.UnixMilli(h.clock) })
	return h
}

func (h *searchHistory) text() string {
	vocab := []string{"alpha", "beta", "gamma", "ORD-55821", "ORD-55822", "ann@example.com", "/usr/bin/go", "déjà", "東京", "x.y-z", "Beta", `C:\Temp\it's`, `say "AND" or NOT`}
	n := 1 + h.rng.IntN(5)
	w := make([]string, n)
	for i := range w {
		w[i] = vocab[h.rng.IntN(len(vocab))]
	}
	return strings.Join(w, " ")
}

func (h *searchHistory) lastID(conv string) string {
	var id string
	h.s.Read(context.Background(), conv, store.ReadOptions{Limit: 1}, func(r store.Row) error {
		var rec transcript.Record
		transcript.DecodeStored(r.Body, &rec)
		id = rec.ID
		return nil
	})
	return id
}

// options is a query with random filters.
func (h *searchHistory) options(q string) store.SearchOptions {
	o := store.SearchOptions{Query: mustQuery(h.t, q)}
	switch h.rng.IntN(5) {
	case 1:
		o.Conversation = h.convs[h.rng.IntN(len(h.convs))]
	case 2:
		o.Role = string(h.roles[h.rng.IntN(len(h.roles))])
	case 3:
		o.Since = h.clock - int64(h.rng.IntN(50000))
	case 4:
		o.Until = h.clock - int64(h.rng.IntN(50000))
	}
	return o
}

// write makes one random write and says what it was.
func (h *searchHistory) write(step int) string {
	t, s, rng, ids, convs, roles := h.t, h.s, h.rng, h.ids, h.convs, h.roles
	ctx := context.Background()
	text, lastID := h.text, h.lastID
	conv := convs[rng.IntN(len(convs))]
	h.clock += int64(rng.IntN(3)) // records of one millisecond, too
	op := rng.IntN(20)
	var what string
	switch {
	case op < 10:
		what = "append"
		var recs []transcript.Record
		for range 1 + rng.IntN(4) {
			r := exportMsg(roles[rng.IntN(len(roles))], text())
			if rng.IntN(4) == 0 {
				r.Metadata.Timing.Creation = h.clock - int64(rng.IntN(100000)) // an import's old time
			}
			recs = append(recs, r)
		}
		appendRecs(t, s, ids, conv, recs...)
	case op < 12:
		what = "summary"
		var all []string
		s.Read(ctx, conv, store.ReadOptions{}, func(r store.Row) error {
			var rec transcript.Record
			transcript.DecodeStored(r.Body, &rec)
			if r.Role != "system" && r.Role != "summary" {
				all = append(all, rec.ID)
			}
			return nil
		})
		if len(all) < 2 {
			return what
		}
		covered := all[:len(all)-1]
		sum := &transcript.Record{ID: ids.New(h.clock), Message: transcript.Message{Role: "summary", Contents: []string{"summary: " + text()}}}
		sum.Metadata.SummaryIDs = covered
		sum.Metadata.Timing.Creation = h.clock
		if err := insertSummary(s, ctx, conv, covered[len(covered)-1], sum, rng.IntN(2) == 0); err != nil && !errors.Is(err, store.ErrConflict) {
			t.Fatalf("step %d summary: %v", step, err)
		}
	case op < 14:
		what = "annotate"
		if id := lastID(conv); id != "" {
			an := &transcript.Annotation{Timing: map[string]int64{"creation": h.clock - int64(rng.IntN(100000))}}
			if _, err := s.Annotate(ctx, conv, id, an); err != nil {
				t.Fatalf("step %d annotate: %v", step, err)
			}
		}
	case op == 14:
		what = "rewind"
		var first string
		s.Read(ctx, conv, store.ReadOptions{}, func(r store.Row) error {
			if first == "" && r.Role != "summary" {
				var rec transcript.Record
				transcript.DecodeStored(r.Body, &rec)
				first = rec.ID
			}
			return nil
		})
		if first != "" {
			if _, err := s.Rewind(ctx, conv, first, store.RewindOptions{}); err != nil {
				t.Fatalf("step %d rewind: %v", step, err)
			}
		}
	case op == 15:
		what = "fork"
		dst := convs[rng.IntN(len(convs))]
		if dst != conv && lastID(conv) != "" {
			if _, err := s.Fork(ctx, conv, dst, store.ForkOptions{Force: true}, ids); err != nil {
				t.Fatalf("step %d fork: %v", step, err)
			}
		}
	case op == 16:
		what = "clear"
		if _, err := s.Clear(ctx, conv); err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("step %d clear: %v", step, err)
		}
	case op == 17:
		what = "prune"
		if _, err := s.Prune(ctx, store.PruneOptions{KeepSummaries: true}); err != nil {
			t.Fatalf("step %d prune: %v", step, err)
		}
	default:
		what = "copy" // Load replacing the conversation with its own dump, renamed
		dst := convs[rng.IntN(len(convs))]
		if dst == conv || lastID(conv) == "" {
			return what
		}
		var pieces []store.Dumped
		if err := s.Dump(ctx, conv, func(d store.Dumped) error {
			switch {
			case d.Conversation != nil:
				c := *d.Conversation
				c.ID = dst
				d.Conversation = &c
			case d.Record != nil:
				r := *d.Record
				r.Body = []byte(strings.Replace(string(r.Body), `"conversation":"`+conv+`"`, `"conversation":"`+dst+`"`, 1))
				d.Record = &r
			}
			pieces = append(pieces, d)
			return nil
		}); err != nil {
			t.Fatalf("step %d dump: %v", step, err)
		}
		i := 0
		if err := s.Load(ctx, true, func() (store.Dumped, error) {
			if i == len(pieces) {
				return store.Dumped{}, io.EOF
			}
			i++
			return pieces[i-1], nil
		}); err != nil {
			t.Fatalf("step %d load: %v", step, err)
		}
	}
	return what
}

// TestSearchProperty: random histories of every kind of write, each
// followed by searches that must find what a scan with the same tokenizer
// finds.
func (x suite) TestSearchProperty(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 40
	}
	s := x.open(t)
	ctx := context.Background()
	h := newSearchHistory(t, s, 31)
	rng, convs, roles := h.rng, h.convs, h.roles
	for step := range steps {
		what := h.write(step)
		clock := h.clock
		queries := h.queries
		for _, q := range queries {
			o := store.SearchOptions{Query: mustQuery(t, q)}
			switch rng.IntN(6) {
			case 1:
				o.Conversation = convs[rng.IntN(len(convs))]
			case 2:
				o.Role = string(roles[rng.IntN(len(roles))])
			case 3:
				o.Since = clock - int64(rng.IntN(50000))
			case 4:
				o.Until = clock - int64(rng.IntN(50000))
			case 5:
				// The newest few: the first of all the hits (searchAll
				// holds every list to newest first).
				o.Limit = 1 + rng.IntN(3)
				all := searchAll(t, s, store.SearchOptions{Query: o.Query})
				if got := searchAll(t, s, o); !slices.Equal(got, all[:min(o.Limit, len(all))]) {
					t.Fatalf("step %d (%s), %q --limit %d: %q, of all %q", step, what, q, o.Limit, got, all)
				}
				o.Limit = 0
			}
			got, want := searchAll(t, s, o), bruteForce(t, s, o)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d (%s), %q %+v: index found %q, a scan %q", step, what, q, o, got, want)
			}
		}
		// An entry left behind (a delete that missed) finds no record,
		// so no search shows it: the backend's own look at its index does.
		if c, ok := s.(interface{ CheckSearchIndex(context.Context) error }); ok {
			if err := c.CheckSearchIndex(ctx); err != nil {
				t.Fatalf("step %d (%s): %v", step, what, err)
			}
		}
	}
}

// TestSearchCatchUp: search finds every record committed before it began
// and never a deleted one, whatever the index has caught up with: random
// interleavings of writes, searches from a handle that brings the index up
// to date first, searches from one that cannot write (SetReadOnly: it
// indexes nothing and reads what the index lacks itself), and the index
// catching up by itself (IndexSearch, what convo index runs).
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
