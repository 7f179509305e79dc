package extractive

import "strings"

// countsTime reports whether a clause counts or places time: "once" or
// "twice", or a unit of time after a number, a count word or a word that
// places it ("3 years", "a few days", "every morning", "last week").
func countsTime(text string) bool {
	var buf, prevBuf [32]byte
	prev := prevBuf[:0]
	for w := range strings.FieldsSeq(text) {
		lw := foldAppend(buf[:0], strings.TrimFunc(w, isNoteMark))
		switch {
		case onceWords[string(lw)]:
			return true
		case timeUnits[string(lw)] && (timeCounts[string(prev)] || numberWords[string(prev)] || len(prev) > 0 && '0' <= prev[0] && prev[0] <= '9'):
			return true
		}
		prev = append(prev[:0], lw...)
	}
	return false
}

var (
	onceWords = wordSet(`once twice thrice daily weekly monthly yearly annually fortnightly`)
	timeUnits = wordSet(`second seconds minute minutes hour hours day days night nights week weeks weekend weekends
		month months year years decade decades morning mornings evening evenings afternoon afternoons times
		monday tuesday wednesday thursday friday saturday sunday summer winter spring fall autumn`)
	timeCounts = wordSet(`a an one few several couple many every each per last next this`)
	// numberWords are the numbers in words, which score as numbers in
	// digits do ("three dogs"); "one" is as often a pronoun ("the blue one").
	numberWords = wordSet(`two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
		sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
		million billion dozen once twice`)
)
