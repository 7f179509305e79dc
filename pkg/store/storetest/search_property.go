package storetest

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

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
		h.summarize(step, conv)
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
		h.rewind(step, conv)
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
		h.copyAs(step, conv)
	}
	return what
}

// summarize writes a summary of all but conv's last record, deleting what
// it covers or not.
func (h *searchHistory) summarize(step int, conv string) {
	t, s, rng, ids := h.t, h.s, h.rng, h.ids
	ctx := context.Background()
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
		return
	}
	covered := all[:len(all)-1]
	sum := &transcript.Record{ID: ids.New(h.clock), Message: transcript.Message{Role: "summary", Contents: []string{"summary: " + h.text()}}}
	sum.Metadata.SummaryIDs = covered
	sum.Metadata.Timing.Creation = h.clock
	if err := insertSummary(s, ctx, conv, covered[len(covered)-1], sum, rng.IntN(2) == 0); err != nil && !errors.Is(err, store.ErrConflict) {
		t.Fatalf("step %d summary: %v", step, err)
	}
}

// rewind rewinds conv to its first record that is no summary or
// placeholder.
func (h *searchHistory) rewind(step int, conv string) {
	t, s := h.t, h.s
	ctx := context.Background()
	var first string
	s.Read(ctx, conv, store.ReadOptions{}, func(r store.Row) error {
		if first == "" && r.Role != "summary" {
			var rec transcript.Record
			transcript.DecodeStored(r.Body, &rec)
			if !rec.IsFake() {
				first = rec.ID
			}
		}
		return nil
	})
	if first != "" {
		if _, err := s.Rewind(ctx, conv, first, store.RewindOptions{}); err != nil {
			t.Fatalf("step %d rewind: %v", step, err)
		}
	}
}

// copyAs replaces another conversation with conv's own dump, renamed
// (copy's Load).
func (h *searchHistory) copyAs(step int, conv string) {
	t, s, rng := h.t, h.s, h.rng
	ctx := context.Background()
	dst := h.convs[rng.IntN(len(h.convs))]
	if dst == conv || h.lastID(conv) == "" {
		return
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
