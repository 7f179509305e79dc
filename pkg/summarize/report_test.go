package summarize

import (
	"testing"
	"time"
)

// The tally names every outcome, and the interrupted ones only when
// there were some.
func TestTallyText(t *testing.T) {
	tl := Tally{Conversations: 5, Summarized: 2, Nothing: 1, NotDue: 1, Held: 0, Failed: 1}
	want := "5 conversations in 1.5s: 2 summarized, 1 with nothing to cover, 1 under the trigger, 0 held by other runners, 1 failed"
	if got := tl.Text(1500 * time.Millisecond); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	tl.Interrupted = 1
	if got := tl.Text(time.Second); got != "5 conversations in 1s: 2 summarized, 1 with nothing to cover, 1 under the trigger, 0 held by other runners, 1 failed, 1 stopped midway" {
		t.Errorf("interrupted: %q", got)
	}
}
