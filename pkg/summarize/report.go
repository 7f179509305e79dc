package summarize

import (
	"encoding/json"
	"fmt"
	"time"
)

// Line is a summary stored, for a person: the conversation, what the
// summary covers and the tokens of the LLM view before and after.
func (res Result) Line() string {
	md := &res.Summary.Metadata
	var before, after int64
	json.Unmarshal(md.Aux["tokensBefore"], &before)
	json.Unmarshal(md.Aux["tokensAfter"], &after)
	return fmt.Sprintf("summarized %s: %d records into %s, view %d -> %d tokens\n",
		res.Conversation, len(md.SummaryIDs), res.Summary.ID, before, after)
}

// Text is the tally of a run that took elapsed, as summarize --all says it
// on stderr after "summarize --all: ".
func (t Tally) Text(elapsed time.Duration) string {
	stopped := ""
	if t.Interrupted > 0 {
		stopped = fmt.Sprintf(", %d stopped midway", t.Interrupted)
	}
	return fmt.Sprintf("%d conversations in %s: %d summarized, %d with nothing to cover, %d under the trigger, %s, %d failed%s",
		t.Conversations, elapsed.Round(time.Millisecond), t.Summarized, t.Nothing, t.NotDue, t.heldNote(), t.Failed, stopped)
}

// heldNote is the tally's count of the conversations other runners held,
// with when their claims lapse at the latest where they are leases: a
// rerun after that takes them (a runner killed outright renews nothing).
func (t Tally) heldNote() string {
	held := fmt.Sprintf("%d held by other runners", t.Held)
	if t.Held > 0 && !t.HeldUntil.IsZero() {
		held += fmt.Sprintf(" (their claims lapse by %s unless renewed)", t.HeldUntil.Local().Format(time.TimeOnly))
	}
	return held
}
