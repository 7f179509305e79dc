package summarize

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Check refuses a policy that cannot work: its error names the flag that
// sets the value (cmd makes it a usage error). The prompt, the template,
// the triggers and the counter are checked where they are read.
func (o Options) Check() error {
	switch {
	case o.KeepLast < 0:
		return fmt.Errorf("--keep-last %d: want 0 or more turns", o.KeepLast)
	case o.KeepLastTokens < 0:
		return fmt.Errorf("--keep-last-tokens %d: want 0 (no bound) or more", o.KeepLastTokens)
	case o.MaxSummaryTokens < 1:
		return fmt.Errorf("--max-summary-tokens %d: want 1 or more", o.MaxSummaryTokens)
	case o.LedgerSize < 1:
		return fmt.Errorf("--ledger-size %d: want 1 or more", o.LedgerSize)
	}
	if !(o.SummaryRatio >= 0 && o.SummaryRatio <= 1) { // NaN fails both
		return fmt.Errorf("--summary-ratio must be between 0 and 1, got %g", o.SummaryRatio)
	}
	return nil
}

// Batch is how a summarize run uses batch files, with what else its flags
// ask of it: a run writes requests (BatchOut), reads results (BatchIn),
// reports on pending batches (Status), or none of these.
type Batch struct {
	Out, In      string // --batch-out, --batch-in FILE
	Status       bool   // --batch-status
	Summarizer   string // --summarizer
	All          bool   // --all
	Conversation string // -c
	DryRun, Rate bool   // --dry-run, --rate given
}

// Check refuses a combination that cannot work, naming its flags (cmd
// makes the error a usage error).
func (b Batch) Check() error {
	switch {
	case b.Status && (b.Out != "" || b.In != "" || b.All || b.Conversation != "" || b.DryRun || b.Rate):
		return errors.New("--batch-status takes no other mode: no --batch-out, --batch-in, -c, --all, --dry-run or --rate")
	case b.Out != "" && b.In != "":
		return errors.New("give --batch-out or --batch-in, not both")
	case b.Out != "" && !b.All:
		return errors.New("--batch-out needs --all")
	case b.Out != "" && !slices.Contains(BatchProviders(), b.Summarizer):
		return fmt.Errorf("--batch-out needs --summarizer %s", strings.Join(BatchProviders(), ", "))
	case b.In != "" && (b.All || b.Conversation != ""):
		return errors.New("--batch-in takes no -c or --all: the results name their conversations")
	case (b.Out != "" || b.In != "") && (b.DryRun || b.Rate):
		return errors.New("--batch-out and --batch-in take no --dry-run or --rate")
	}
	return nil
}
