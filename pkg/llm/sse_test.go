package llm

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzSSE: the SSE framing every SSE provider's stream goes through never
// panics, and the events it reads, written out again, read the same.
func FuzzSSE(f *testing.F) {
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\"}\n\n: ping\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"a\":1}\r\n\r\ndata: line one\ndata: line two\n\nid: 7\nretry: 10\ndata:x"))
	f.Fuzz(func(t *testing.T, in []byte) {
		read := func(in []byte) []sseEvent {
			var out []sseEvent
			err := readSSE(bytes.NewReader(in), func(ev sseEvent) error {
				out = append(out, sseEvent{name: ev.name, data: bytes.Clone(ev.data)})
				return nil
			})
			if err != nil {
				t.Fatalf("readSSE: %v", err)
			}
			return out
		}
		events := read(in)
		var again bytes.Buffer
		for _, ev := range events {
			if ev.name != "" {
				again.WriteString("event: " + ev.name + "\n")
			}
			for _, line := range strings.Split(string(ev.data), "\n") {
				again.WriteString("data: " + line + "\n")
			}
			again.WriteString("\n")
		}
		if got := read(again.Bytes()); !reflect.DeepEqual(got, events) {
			t.Fatalf("read %q\nwritten out again as %q, read %q", events, again.Bytes(), got)
		}
	})
}
