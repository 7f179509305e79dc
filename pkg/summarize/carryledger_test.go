package summarize

import (
	"github.com/convo-cli/convo/pkg/summarize/facts"
	"github.com/convo-cli/convo/pkg/transcript"
)

// CarryLedger returns the ledger of a new summary: the previous summary's
// entries, with the facts of the covered records counted in, within size
// entries, and how many entries it dropped (this time and before). The
// user's instructions come first, then what the user said, then what was
// said more often, then the newest.
func CarryLedger(prev *transcript.Record, covered []transcript.Record, size int) ([]facts.Fact, int) {
	ledger, dropped, _ := carryLedger(prev, covered, transcript.Slice(covered...), size, nil)
	return ledger, dropped
}
