package extractive

import "strings"

// joinLists makes each list of short items one phrase: "croissants,
// muffins, and tarts" or "love, faith and strength" is one fact, which
// its items apart do not tell. A list is a run of phrases parted by
// commas alone (listed), three or more, or two closed by an item that
// holds "and" or "or" ("and tarts", "faith and strength"), of at most
// maxListItemWords words an item and maxListWords in all; any other run
// is left as it is.
func joinLists(ps []phrase) []phrase {
	out := ps[:0]
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].listed {
			j++
		}
		if j-i < 2 || !isList(ps[i:j]) {
			for _, p := range ps[i:j] {
				p.listed = false // it told joinLists all it had to
				out = append(out, p)
			}
			i = j
			continue
		}
		joined := ps[i]
		joined.listed = false
		texts := make([]string, 0, j-i)
		for _, p := range ps[i:j] {
			texts = append(texts, p.text)
		}
		joined.text = strings.Join(texts, ", ")
		out = append(out, joined)
		i = j
	}
	return out
}

const (
	maxListItemWords = 4
	maxListWords     = 12
)

// isList reports whether phrases parted by commas alone are the items of
// one list (see joinLists).
func isList(items []phrase) bool {
	words := 0
	for _, p := range items {
		n := strings.Count(p.text, " ") + 1
		if n > maxListItemWords {
			return false
		}
		words += n
	}
	closed := false
	for w := range strings.FieldsSeq(items[len(items)-1].text) {
		closed = closed || strings.EqualFold(w, "and") || strings.EqualFold(w, "or")
	}
	return (closed || len(items) >= 3) && words <= maxListWords
}
