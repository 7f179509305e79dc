package cmd

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// longWrite makes the writes of long spans' summaries go one at a time:
// the memory limit longWriteMemory sets is the process's.
var longWrite sync.Mutex

// longWriteMemory is summarize.Runner.LongWrite: the summary of a long span
// is tens of megabytes of ids, which the store encodes and the database
// copies twice as it writes them, so the garbage of the summarizer's passes
// goes back to the system first, and the heap grows little past what is
// live while it writes. done restores the limit.
func longWriteMemory() (done func()) {
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

// longReadMemory is importer.Options.LongRead: a large file's index (a
// few dozen bytes an entry) and the chunks of records in flight are what is
// live while it is imported, the rest garbage; a soft limit of what is live
// before, room for the chunks and the index (a 32nd of the file, more than
// a Claude Code session's index takes) keeps that garbage from doubling
// the heap. done restores the limit.
func longReadMemory(size int64) (done func()) {
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	old := debug.SetMemoryLimit(min(debug.SetMemoryLimit(-1), int64(m.HeapAlloc)+48<<20+size/32))
	return func() { debug.SetMemoryLimit(old) }
}
