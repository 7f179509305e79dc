package importer

import (
	"encoding/json"
	"fmt"

	"github.com/convo-cli/convo/pkg/transcript"
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

// Outcome says how an import that ran to its end failed, if it did: bad
// files (named as they failed) first, then with strict what was lost.
// Both are input errors (exit 3); the rest is stored either way.
func (t *Tally) Outcome(bad int, strict bool) error {
	if bad > 0 {
		return &transcript.InputError{Err: fmt.Errorf("%d of %s could not be imported (named above); the rest is stored", bad, plural(t.Files, "file"))}
	}
	if strict && t.Lost+t.Cut+t.Rewritten > 0 {
		// Loss only: what is known and kept elsewhere, or of no use to a
		// provider (progress, snapshots, token counts), is none.
		return &transcript.InputError{Err: fmt.Errorf("--strict: %s lost, %s cut, %s rewritten in place not read (named above); the rest is stored",
			plural(t.Lost, "thing"), Entries(t.Cut), plural(t.Rewritten, "file"))}
	}
	return nil
}

// ChangedLine is import's line for a conversation it changed, n records
// added: with JSON an object, else "ID\t+N records" with the id as escape
// gives it (a terminal must not obey what an id holds).
func ChangedLine(conv string, n int, JSON bool, escape func(string) string) []byte {
	if JSON {
		b, _ := json.Marshal(map[string]any{"conversation": conv, "records": n})
		return b
	}
	return fmt.Appendf(nil, "%s\t+%d records", escape(conv), n)
}
