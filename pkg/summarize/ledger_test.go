package summarize

import (
	"slices"
	"testing"
)

// TestRankLedger: the user's instructions first, the newest of them past
// the bound; then the user, the assistant, tools; then the most often said,
// then the newest.
func TestRankLedger(t *testing.T) {
	speakers := []string{"user", "assistant", "tool bash"}
	entries := []ledgerEntry{
		{seen: 1, by: 0, last: 1, instruction: true}, // 0: an older instruction
		{seen: 9, by: 2, last: 2},                    // 1: a tool's, often printed
		{seen: 1, by: 1, last: 3},                    // 2: the assistant's
		{seen: 2, by: 0, last: 4},                    // 3: the user's, twice
		{seen: 1, by: 0, last: 5},                    // 4: the user's, newer
		{seen: 1, by: 0, last: 6, instruction: true}, // 5: a newer instruction
	}
	for _, tt := range []struct {
		size    int
		want    []int32
		dropped int
	}{
		{10, []int32{5, 0, 3, 4, 2, 1}, 0},
		{4, []int32{5, 0, 3, 4}, 2},
		{1, []int32{5}, 5},
	} {
		got, dropped := rankLedger(entries, speakers, tt.size)
		if !slices.Equal(got, tt.want) || dropped != tt.dropped {
			t.Errorf("size %d: kept %v, dropped %d; want %v, %d", tt.size, got, dropped, tt.want, tt.dropped)
		}
	}
}
