package show

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/convo-cli/convo/pkg/store"
)

// BatchStatusEntry is one line of summarize --batch-status --json.
// Consumers ignore fields they do not know; fields are added, never
// removed or renamed.
type BatchStatusEntry struct {
	CustomID     string          `json:"customId"`
	Conversation string          `json:"conversation"`
	Summarizer   string          `json:"summarizer"`
	Model        string          `json:"model"`
	ReadSeq      int64           `json:"readSeq"`
	FirstID      string          `json:"firstId"`
	LastID       string          `json:"lastId"`
	Covered      int64           `json:"covered"`
	Options      json.RawMessage `json:"options"`
	Created      int64           `json:"created"`
	Expires      int64           `json:"expires"`
}

// BatchStatus prints summarize --batch-status: the pending batch requests
// reqs, each dropped age after it was written, as a table for people or
// with asJSON one object per line.
func BatchStatus(w io.Writer, reqs []store.BatchRequest, age time.Duration, asJSON bool) error {
	ageMs := age.Milliseconds()
	if asJSON {
		lw := tabwriter.NewWriter(w, 0, 8, 1, ' ', 0)
		enc := json.NewEncoder(lw)
		enc.SetEscapeHTML(false)
		for _, r := range reqs {
			options := json.RawMessage(r.Options)
			if !json.Valid(options) {
				options = json.RawMessage("null")
			}
			if err := enc.Encode(BatchStatusEntry{
				CustomID: r.CustomID, Conversation: r.Conversation, Summarizer: r.Summarizer, Model: r.Model,
				ReadSeq: r.ReadSeq, FirstID: r.FirstID, LastID: r.LastID, Covered: r.Covered,
				Options: options, Created: r.Created, Expires: r.Created + ageMs,
			}); err != nil {
				return err
			}
		}
		return lw.Flush()
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CUSTOM ID\tCONVERSATION\tSUMMARIZER\tRECORDS\tWRITTEN\tDROPPED AFTER")
	for _, r := range reqs {
		// An id is printed for people: escaped as list escapes it.
		fmt.Fprintf(tw, "%s\t%s\t%s/%s\t%d\t%s\t%s\n", r.CustomID, EscapeID(r.Conversation), r.Summarizer, r.Model, r.Covered,
			time.UnixMilli(r.Created).UTC().Format(time.RFC3339), time.UnixMilli(r.Created+ageMs).UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}
