package search

import (
	"fmt"
	"testing"
)

// TestRanked: the best first, at most limit of them, and past RankLimit
// the newest held and Over said.
func TestRanked(t *testing.T) {
	q, err := Parse("invoice")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"lunch", "invoice invoice invoice", "an invoice among many other words here", "invoice"}
	r := NewRanked(q, func(s string) *Doc { return NewDoc(s) })
	for _, s := range texts {
		r.Add(s)
	}
	var got []string
	if err := r.Each(2, func(s string, score float64) error {
		got = append(got, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint([]string{"invoice invoice invoice", "invoice"}) || r.Over() {
		t.Fatalf("got %q, over %v", got, r.Over())
	}

	r = NewRanked(q, func(s string) *Doc { return NewDoc(s) })
	for i := range RankLimit + 1 {
		r.Add(fmt.Sprintf("invoice %d", i))
	}
	n := 0
	r.Each(0, func(s string, _ float64) error {
		if s == fmt.Sprintf("invoice %d", RankLimit) {
			t.Fatalf("the oldest match, past the limit, was ranked")
		}
		n++
		return nil
	})
	if !r.Over() || n != RankLimit {
		t.Fatalf("over %v, ranked %d, want true, %d", r.Over(), n, RankLimit)
	}
}
