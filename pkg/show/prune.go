package show

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/convo-cli/convo/pkg/store"
)

// Prune prints what prune did, or with dryRun would do: a line per
// conversation, then the tally; batchAge is how old a pending batch
// request is when prune drops it, for people.
func Prune(out io.Writer, res store.PruneResult, dryRun bool, batchAge string) error {
	w := tabwriter.NewWriter(out, 0, 8, 1, ' ', 0)
	verb := map[bool]string{true: "deleted", false: "trimmed"}
	if dryRun {
		verb = map[bool]string{true: "would delete", false: "would trim"}
	}
	for _, p := range res.Conversations {
		fmt.Fprintf(w, "%s\t%s\t%s\n", verb[p.Deleted], p.Conversation, plural(int(p.Records), "record"))
	}
	if dryRun {
		fmt.Fprintf(w, "prune: %s would be deleted, %d trimmed, %s removed", plural(res.Deleted, "conversation"), res.Trimmed, plural(int(res.Records), "record"))
	} else {
		fmt.Fprintf(w, "prune: %s deleted, %d trimmed, %s removed", plural(res.Deleted, "conversation"), res.Trimmed, plural(int(res.Records), "record"))
	}
	switch {
	case dryRun:
		fmt.Fprint(w, " (dry run: nothing changed)")
	case res.Vacuumed:
		fmt.Fprintf(w, "; vacuumed, %d bytes freed", res.FreedBytes)
	}
	if res.BatchDropped > 0 {
		fmt.Fprintf(w, "; %d pending batch request(s) written over %s ago %s", res.BatchDropped, batchAge,
			map[bool]string{true: "would be dropped", false: "dropped"}[dryRun])
	}
	fmt.Fprintln(w)
	return w.Flush()
}

// plural is n and noun, in the plural unless n is 1: "2000 records".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
