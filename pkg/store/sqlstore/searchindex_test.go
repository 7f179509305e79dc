package sqlstore

import (
	"encoding/json"
	"testing"
)

func TestAppendJSONText(t *testing.T) {
	for _, s := range []string{"", "plain terms #ruser #c6162", `c:\temp\it`, `say "and"`, "tab\there\nnewline\x00nul\x1f", "déjà 東京", `\"\\`} {
		b := appendJSONText([]byte("x"), s)
		var got string
		if err := json.Unmarshal(b[1:], &got); err != nil {
			t.Fatalf("%q: %s is no JSON string: %v", s, b[1:], err)
		}
		if got != s {
			t.Errorf("%q came back as %q", s, got)
		}
	}
}
