package summarize

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/convo-cli/convo/pkg/transcript"
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

// Print prints what res leaves on stdout: the text a dry run would send,
// on out, or the summary stored, through enc, unless quiet.
func (res Result) Print(out io.Writer, enc *transcript.Encoder, quiet bool) error {
	switch {
	case res.DryRun != "":
		_, err := io.WriteString(out, res.DryRun+"\n")
		return err
	case res.Summary != nil && !quiet:
		return enc.Encode(res.Summary)
	}
	return nil
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

// BatchAge is BatchPendingAge for people: "30 days".
func BatchAge() string {
	return fmt.Sprintf("%d days", BatchPendingAge/(24*time.Hour))
}

// OutText is the tally of a --batch-out run, as summarize says it on
// stderr after "summarize --batch-out: ".
func (t BatchTally) OutText() string {
	return fmt.Sprintf("%d conversations: %d requests written, %d with nothing to cover, %d under the trigger, %d failed",
		t.Conversations, t.Requests, t.Nothing, t.NotDue, t.Failed)
}

// InText is the tally of a --batch-in run, as summarize says it on stderr
// after "summarize --batch-in: ".
func (t BatchTally) InText() string {
	return fmt.Sprintf("%d results: %d stored, %d summarized already, %d conversations changed since the request, %d errored or expired, %d failed",
		t.Conversations, t.Stored, t.Already, t.Changed, t.Errored, t.Failed)
}

// UnrecordedText warns of the results of a --batch-in run whose requests
// the store holds no record of, after "summarize --batch-in: "; "" when
// there are none. They were applied with the options given, which a
// person must check are those of --batch-out.
func (t BatchTally) UnrecordedText() string {
	if t.Unrecorded == 0 {
		return ""
	}
	return fmt.Sprintf("%d of the results answer requests this store holds no record of (an older convo's, another store's, or written over %s ago): applied with the summarize options given, which must be those of --batch-out",
		t.Unrecorded, BatchAge())
}

// Where names a --batch-in result skipped, after "summarize --batch-in ":
// its line, custom id, conversation ("?" when unknown) and status.
func (out BatchOutcome) Where() string {
	conv := out.Conversation
	if conv == "" {
		conv = "?"
	}
	return fmt.Sprintf("line %d (%s, conversation %s): %s", out.Line, out.CustomID, conv, out.Status)
}
