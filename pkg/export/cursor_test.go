package export

import (
	"testing"
)

// Covers is set inclusion of what two cursors say was sent, checked
// against the sets themselves for every small cursor.
func TestCursorCovers(t *testing.T) {
	sent := func(c Cursor) map[int64]bool {
		m := map[int64]bool{}
		for s := int64(1); s <= c.Seq; s++ {
			if s != c.Held {
				m[s] = true
			}
		}
		return m
	}
	var all []Cursor
	for seq := int64(0); seq <= 5; seq++ {
		all = append(all, Cursor{Seq: seq})
		for held := int64(1); held <= seq; held++ {
			all = append(all, Cursor{Seq: seq, Held: held})
		}
	}
	for _, a := range all {
		for _, b := range all {
			want := true
			sa := sent(a)
			for s := range sent(b) {
				want = want && sa[s]
			}
			if got := a.Covers(b); got != want {
				t.Errorf("%+v.Covers(%+v) = %v, want %v", a, b, got, want)
			}
		}
	}
}
