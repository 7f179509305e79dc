package summarize

import (
	"runtime"
	"sync"
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
