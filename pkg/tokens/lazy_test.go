package tokens

import (
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Lazy counts as the counter it loads; an unknown tokenizer fails on
// first use, not when made.
func TestLazy(t *testing.T) {
	c, err := New(Default)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLazy(Default)
	rec := transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Paris is sunny, and Lisbon rainy."}}}
	body := transcript.AppendJSON(nil, &rec)
	for _, tc := range []struct {
		name string
		role string
		some bool // counts tokens
	}{
		{"a user record", "user", true},
		{"a system record counts nothing", "system", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, werr := c.Stored(tc.role, body)
			got, err := l.Stored(tc.role, body)
			if got != want || err != nil || werr != nil || (got > 0) != tc.some {
				t.Errorf("Stored = %d, %v; want %d, %v", got, err, want, werr)
			}
		})
	}
	want, _ := c.InHand(&rec)
	if got, err := l.InHand(&rec); got != want || err != nil || got == 0 {
		t.Errorf("InHand = %d, %v; want %d", got, err, want)
	}
	bad := NewLazy("no_such_base")
	if _, err := bad.Stored("user", body); err == nil {
		t.Error("an unknown tokenizer counted")
	}
	if _, err := bad.InHand(&rec); err == nil {
		t.Error("an unknown tokenizer counted a record in hand")
	}
}
