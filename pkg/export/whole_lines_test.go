package export

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// writes records every Write its writer is given.
type writes struct {
	all   bytes.Buffer
	parts [][]byte
}

func (w *writes) Write(p []byte) (int, error) {
	w.parts = append(w.parts, bytes.Clone(p))
	return w.all.Write(p)
}

// The line formats hand their writer whole lines only, whatever the
// records' sizes against the 64 KiB buffer: an export stopped between
// records ends on a whole line (spec section 5).
func TestLineFormatsWriteWholeLines(t *testing.T) {
	var bodies [][]byte
	for i, size := range []int{10, 30_000, 30_000, 30_000, 70_000, 5, 65_535, 65_536, 200_000, 12} {
		text := strings.Repeat("x", size)
		bodies = append(bodies, fmt.Appendf(nil, `{"id":"r%d","conversation":"c","message":{"role":"user","contents":[%q]}}`, i, text))
	}
	for _, f := range []Format{JSONL, DynamoDB} {
		t.Run(string(f), func(t *testing.T) {
			var out writes
			renderTo(t, &out, f, Options{}, bodies)
			if got := bytes.Count(out.all.Bytes(), []byte("\n")); got != len(bodies) {
				t.Fatalf("%d lines written, want %d", got, len(bodies))
			}
			for i, p := range out.parts {
				if !bytes.HasSuffix(p, []byte("\n")) {
					t.Fatalf("write %d of %d (%d bytes) ends inside a line", i+1, len(out.parts), len(p))
				}
			}
			if f == JSONL {
				want := append(bytes.Join(bodies, []byte("\n")), '\n')
				if !bytes.Equal(out.all.Bytes(), want) {
					t.Fatal("the output is not the records, a line each")
				}
			}
		})
	}
}
