package transcript

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/endless"
)

func TestReadLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("y", 100)+"\nlast"), 16)
	for _, want := range []struct {
		line string
		err  error
	}{{"short\n", nil}, {strings.Repeat("y", 100) + "\n", nil}, {"last", io.EOF}} {
		line, err := ReadLine(br, 200)
		if string(line) != want.line || err != want.err {
			t.Fatalf("ReadLine = %q, %v; want %q, %v", line, err, want.line, want.err)
		}
	}
	// A line that never ends: read a little past max, not to its end.
	src := &endless.Line{Max: 1 << 20}
	line, _ := ReadLine(bufio.NewReaderSize(src, 16), 100)
	if len(line) <= 100 || src.N > 4096 {
		t.Fatalf("an endless line: %d bytes returned, %d read; want past 100, not read on", len(line), src.N)
	}
}
