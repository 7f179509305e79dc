// Package memlimit sets the Go heap's soft limit around the work whose
// garbage would otherwise double the heap: summarize of a stored
// conversation, the write of a long span's summary, the import of a large
// file. A soft limit makes the collector work harder; it never fails a run.
package memlimit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// longWrite makes the writes of long spans' summaries go one at a time:
// the memory limit LongWrite sets is the process's.
var longWrite sync.Mutex

// LongWrite is summarize.Runner.LongWrite: the summary of a long span
// is tens of megabytes of ids, which the store encodes and the database
// copies twice as it writes them, so the garbage of the summarizer's passes
// goes back to the system first, and the heap grows little past what is
// live while it writes. done restores the limit.
func LongWrite() (done func()) {
	longWrite.Lock()
	old := debug.SetMemoryLimit(writeMemoryLimit())
	return func() {
		debug.SetMemoryLimit(old)
		longWrite.Unlock()
	}
}

// writeMemoryLimit is a soft limit for writing a long span's summary: what
// is live once the garbage is collected, and room for its body and some
// garbage besides; never above the limit set.
func writeMemoryLimit() int64 {
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return min(debug.SetMemoryLimit(-1), int64(m.HeapAlloc)+64<<20)
}

// LongRead is importer.Options.LongRead: a large file's index (a
// few dozen bytes an entry) and the chunks of records in flight are what is
// live while it is imported, the rest garbage; a soft limit of what is live
// before, room for the chunks and the index (a 32nd of the file, more than
// a Claude Code session's index takes) keeps that garbage from doubling
// the heap. done restores the limit.
func LongRead(size int64) (done func()) {
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	old := debug.SetMemoryLimit(min(debug.SetMemoryLimit(-1), int64(m.HeapAlloc)+48<<20+size/32))
	return func() { debug.SetMemoryLimit(old) }
}

// summarizeLimit is the soft limit on the Go heap summarize sets
// unless GOMEMLIMIT does: a long stored conversation is summarized in
// passes that each decode every record again, and the garbage would let
// the heap grow to twice what is live (at 1,450,000 records about 100 MB
// live, 275 MB of RSS without the limit, 196 MB with it). The collector
// works harder instead; it is a soft limit and never fails a run.
const summarizeLimit = 160 << 20

// Summarize sets summarize's soft limit, unless GOMEMLIMIT set one.
func Summarize() {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(summarizeLimit)
	}
}

// bulkGCPercent is the collector's target while a bulk write runs: what
// is live there is small (a batch of records, a few MB), so at Go's
// default of 100 the heap is collected every few MB of garbage, 200 and
// more times over a 1,000,000-line append (a fifth of its CPU). At 400 a
// 1M append took 7.7-8.5 s instead of 8.6-10.4, its peak RSS 60 MB
// instead of 47 (docs/notes/fork-copy.md).
const bulkGCPercent = 400

// bulkLimit caps the heap a bulk write's garbage may grow it to (a soft
// limit: the collector works harder near it, as at GOGC=100).
const bulkLimit = 192 << 20

// Bulk sets the collector for a bulk write, unless GOGC (or GOMEMLIMIT,
// for the limit) chose otherwise. done restores what was set.
func Bulk() (done func()) {
	gc, limit := -2, int64(-1)
	if os.Getenv("GOGC") == "" {
		gc = debug.SetGCPercent(bulkGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		limit = debug.SetMemoryLimit(min(debug.SetMemoryLimit(-1), bulkLimit))
	}
	return func() {
		if gc != -2 {
			debug.SetGCPercent(gc)
		}
		if limit >= 0 {
			debug.SetMemoryLimit(limit)
		}
	}
}
