package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// benchRecords is how many records BenchmarkSearch stores:
// CONVO_BENCH_SEARCH_RECORDS (the figure in docs/search.md is at
// 1,000,000), 20,000 by default so that make bench stays short.
func benchRecords() int {
	if n, err := strconv.Atoi(os.Getenv("CONVO_BENCH_SEARCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 20000
}

// benchText is a chat line: common words, a word of 1,000, an order
// number and an e-mail of a few records each.
func benchText(rng *rand.Rand, i int) string {
	common := []string{"the", "parcel", "order", "please", "check", "status", "thanks", "shipping", "delayed", "today"}
	var b strings.Builder
	for range 8 + rng.IntN(12) {
		b.WriteString(common[rng.IntN(len(common))])
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "topic%d ORD-%d ann%d@example.com", rng.IntN(1000), i/4, rng.IntN(5000))
	return b.String()
}

// fillSearch appends n records over 100 conversations, 10,000 to a call.
func fillSearch(b *testing.B, s store.Store, n int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	ids := transcript.NewIDs()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for done := 0; done < n; {
		conv := fmt.Sprintf("c%02d", (done/10000)%100)
		batch := min(10000, n-done)
		if _, err := s.Append(ctx, conv, ids, func(yield func(*transcript.Record) error) error {
			for k := done; k < done+batch; k++ {
				r := exportMsg([]transcript.Role{"user", "assistant"}[k%2], benchText(rng, k))
				r.Metadata.Timing.Creation = start + int64(k)*1000
				if err := yield(&r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		done += batch
	}
}

// BenchmarkSearch measures search QUERY --limit 20, newest first, over
// benchRecords records: a word nearly every record holds, one of a
// thousand, an order number, a phrase, a prefix, and a common word in one
// conversation.
func BenchmarkSearch(b *testing.B, backend Backend) {
	s, err := backend(b)()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	n := benchRecords()
	t0 := time.Now()
	fillSearch(b, s, n)
	b.Logf("%d records stored in %v (%.0f records/s)", n, time.Since(t0), float64(n)/time.Since(t0).Seconds())
	ctx := context.Background()
	for _, tt := range []struct {
		name, q string
		o       store.SearchOptions
	}{
		{"common", "parcel", store.SearchOptions{}},
		{"rare", "topic7", store.SearchOptions{}},
		{"identifier", fmt.Sprintf("ORD-%d", n/8), store.SearchOptions{}},
		{"phrase", `"parcel delayed"`, store.SearchOptions{}},
		{"prefix", "topic99*", store.SearchOptions{}},
		{"common-in-conversation", "parcel", store.SearchOptions{Conversation: "c01"}},
		{"common-rank", "parcel delayed", store.SearchOptions{Limit: search.RankLimit + 1}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			o := tt.o
			if o.Query, err = search.Parse(tt.q); err != nil {
				b.Fatal(err)
			}
			if o.Limit == 0 {
				o.Limit = 20
			}
			for b.Loop() {
				hits := 0
				if err := s.Search(ctx, o, func(store.SearchHit) error { hits++; return nil }); err != nil {
					b.Fatal(err)
				}
				if hits == 0 {
					b.Fatalf("%q found nothing", tt.q)
				}
			}
		})
	}
}

// BenchmarkBulkAppend measures appends of 10,000 records in one call, as
// an import does; it reports records/s (docs/notes/search-log.md
// compares it with and without the search index).
func BenchmarkBulkAppend(b *testing.B, backend Backend) {
	s, err := backend(b)()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const batch = 10000
	done := 0
	for b.Loop() {
		fillSearchAt(b, s, done, batch)
		done += batch
	}
	b.ReportMetric(float64(done)/b.Elapsed().Seconds(), "records/s")
}

func fillSearchAt(b *testing.B, s store.Store, from, n int) {
	rng := rand.New(rand.NewPCG(uint64(from), 2))
	ids := transcript.NewIDs()
	if _, err := s.Append(context.Background(), fmt.Sprintf("b%d", from/n%10), ids, func(yield func(*transcript.Record) error) error {
		for i := 1; i <= n; i++ {
			r := exportMsg([]transcript.Role{"user", "assistant"}[i%2], benchText(rng, from+i))
			if err := yield(&r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
}
