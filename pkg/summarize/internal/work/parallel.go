// Package work holds what the summarize use case and its extractive
// engine both need and neither owns: loops over records spread on every
// processor, a string hash, and regular expressions compiled on first use.
package work

import (
	"regexp"
	"runtime"
	"sync"

	"github.com/convo-cli/convo/pkg/transcript"
)

// parallelMinItems: below it a job runs inline, as goroutines would cost
// more than they save.
const parallelMinItems = 32

// ForEach calls fn(i) for every i in [0, n), spread over the
// processors in contiguous chunks; fn must only write what belongs to i,
// so the result is the same as calling it in order.
func ForEach(n int, fn func(i int)) {
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

// Batch is how many records of a stream are worked on at once.
var Batch = 256

// InBatches calls work with each record of stream, on every processor a
// batch at a time, then use with each record and its result, in order.
func InBatches[T any](stream transcript.Stream, work func(*transcript.Record) T, use func(*transcript.Record, T) error) error {
	var batch []transcript.Record
	var out []T
	flush := func() error {
		out = append(out[:0], make([]T, len(batch))...)
		ForEach(len(batch), func(i int) { out[i] = work(&batch[i]) })
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
		if len(batch) == Batch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return err
}

// Hash is 64-bit FNV-1a, its bits mixed (murmur3's finalizer): the
// key of a phrase or word in the sets above. Two distinct keys sharing a
// hash would be taken for one: with n keys the chance is about n²/2⁶⁵,
// one in ten million for a million distinct phrases.
func Hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// LazyRegexp compiles a pattern on first use: convo starts a process per
// command, and most commands never summarize.
func LazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
