package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// BenchmarkConcurrentAppend measures single-record appends (one transaction
// each) by 1, 2, 4 and 8 writers, each with its own handle as a process
// would have, each into its own conversation; it reports records/s.
func BenchmarkConcurrentAppend(b *testing.B, backend Backend) {
	for _, writers := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			open := backend(b)
			handles := make([]store.Store, writers)
			for i := range handles {
				s, err := open()
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				handles[i] = s
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			ctx := context.Background()
			b.ResetTimer()
			for w, s := range handles {
				wg.Go(func() {
					ids := transcript.NewIDs()
					conv := fmt.Sprintf("w%d", w)
					for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
						rec := transcript.Record{Message: transcript.Message{Role: []transcript.Role{"user", "assistant"}[i%2],
							Contents: []string{fmt.Sprintf("message %d", i)}}}
						if _, err := s.Append(ctx, conv, ids, transcript.Slice(rec)); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
