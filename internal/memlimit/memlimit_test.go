package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestBulk(t *testing.T) {
	for _, tc := range []struct {
		name, gogc, gomemlimit string
		wantGC                 int
		wantLimit              int64
	}{
		{"defaults", "", "", bulkGCPercent, bulkLimit},
		{"GOGC chosen", "150", "", 150, bulkLimit},
		{"GOMEMLIMIT chosen", "", "1GiB", bulkGCPercent, 1 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			t.Setenv("GOMEMLIMIT", tc.gomemlimit)
			// What the runtime read from those variables at start-up.
			oldGC := debug.SetGCPercent(150)
			oldLimit := debug.SetMemoryLimit(1 << 30)
			if tc.gogc == "" {
				debug.SetGCPercent(100)
			}
			if tc.gomemlimit == "" {
				debug.SetMemoryLimit(math.MaxInt64)
			}
			defer debug.SetGCPercent(oldGC)
			defer debug.SetMemoryLimit(oldLimit)
			before, beforeLimit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
			debug.SetGCPercent(before)

			done := Bulk()
			gc, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
			debug.SetGCPercent(gc)
			if gc != tc.wantGC || limit != tc.wantLimit {
				t.Errorf("during Bulk: GOGC %d, limit %d; want %d, %d", gc, limit, tc.wantGC, tc.wantLimit)
			}
			done()
			gc, limit = debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
			debug.SetGCPercent(gc)
			if gc != before || limit != beforeLimit {
				t.Errorf("after Bulk: GOGC %d, limit %d; want %d, %d", gc, limit, before, beforeLimit)
			}
		})
	}
}
