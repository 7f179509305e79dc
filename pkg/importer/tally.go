package importer

import (
	"encoding/json"
	"fmt"
)

// Summary is the tally as import's stderr line says it, after "import: ".
func (t *Tally) Summary() string {
	return fmt.Sprintf("%s (%d unchanged, %d rewritten), %s, %s changed (%s), %s added, %d merged, %d already there, %d cut to fit, %s not imported (%d lost), %d deleted before",
		plural(t.Files, "file"), t.Unchanged, t.Rewritten, plural(t.Sessions, "session"), plural(t.Conversations, "conversation"),
		pluralES(t.Forks, "new branch"), plural(t.Inserted, "record"), t.Merged, t.Skipped, t.Cut, plural(t.NotImported, "thing"), t.Lost, t.Deleted)
}

// JSON is import --json's last line: the tally, what was not imported
// split into lost and known (kept elsewhere or of no use to a provider),
// each by kind.
func (t *Tally) JSON() []byte {
	lost, known := map[string]int{}, map[string]int{}
	for k, v := range t.Kinds {
		if Known(k) {
			known[k] = v
		} else {
			lost[k] = v
		}
	}
	b, _ := json.Marshal(map[string]any{"tally": map[string]any{
		"files": t.Files, "unchanged": t.Unchanged, "rewritten": t.Rewritten,
		"sessions": t.Sessions, "conversations": t.Conversations, "newBranches": t.Forks,
		"added": t.Inserted, "merged": t.Merged, "alreadyThere": t.Skipped, "cut": t.Cut,
		"notImported": t.NotImported, "lost": t.Lost, "known": t.NotImported - t.Lost,
		"lostKinds": lost, "knownKinds": known, "deletedBefore": t.Deleted,
	}})
	return b
}

// Entries is "1 entry", "2 entries".
func Entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// plural is n and noun, in the plural unless n is 1: "2000 records".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pluralES is plural for a noun whose plural ends in -es: "2 new branches".
func pluralES(n int, noun string) string {
	if n == 1 {
		return plural(n, noun)
	}
	return plural(n, noun+"e")
}
