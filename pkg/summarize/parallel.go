package summarize

import (
	"runtime"
	"sync"

	"github.com/convo-cli/convo/pkg/transcript"
)

// parallelMinItems: below it a job runs inline, as goroutines would cost
// more than they save.
const parallelMinItems = 32

// forEachParallel calls fn(i) for every i in [0, n), spread over the
// processors in contiguous chunks; fn must only write what belongs to i,
// so the result is the same as calling it in order.
func forEachParallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/parallelMinItems)
	if workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// streamBatch is how many records of a stream are worked on at once.
var streamBatch = 256

// inBatches calls work with each record of stream, on every processor a
// batch at a time, then use with each record and its result, in order.
func inBatches[T any](stream RecordStream, work func(*transcript.Record) T, use func(*transcript.Record, T) error) error {
	var batch []transcript.Record
	var out []T
	flush := func() error {
		out = append(out[:0], make([]T, len(batch))...)
		forEachParallel(len(batch), func(i int) { out[i] = work(&batch[i]) })
		for i := range batch {
			if err := use(&batch[i], out[i]); err != nil {
				return err
			}
		}
		clear(batch) // let the records go
		batch = batch[:0]
		return nil
	}
	err := stream(func(r *transcript.Record) error {
		// A streamed record is decoded afresh each time: its copy shares
		// nothing that is written to again.
		batch = append(batch, *r)
		if len(batch) == streamBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return err
}
