package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// appendCompaction is append --from for a body holding a provider's
// compaction (SPEC section 7, provider compaction): a summary record standing
// for it, covering what the request was rendered from (the stored view),
// then the answer that came with it, if any, in one transaction. The
// originals stay.
func (a *Factory) appendCompaction(ctx context.Context, o *appendOptions, ans *format.Answer, an *transcript.Annotation, now int64) error {
	c := ans.Compaction
	if o.conversation == "" {
		return usageErrorf("--from %s: the body holds a compaction, which stands for stored records: give -c", o.from)
	}
	covered, last, err := a.compactionCovers(ctx, o.conversation)
	if err != nil {
		return err
	}
	if len(covered) == 0 {
		return &transcript.InputError{Err: fmt.Errorf("%s response body holds a compaction, but conversation %q holds nothing it could stand for; nothing appended", o.from, o.conversation)}
	}
	aux := map[string]json.RawMessage{"provider": jsonString(o.from), "summarizer": jsonString(format.CompactionSummarizer(o.from))}
	if ans.Model != "" {
		aux["model"] = jsonString(ans.Model)
	}
	if ans.ResponseID != "" {
		aux["response_id"] = jsonString(ans.ResponseID)
	}
	if u, err := transcript.CompactJSON(ans.Usage.Raw); c.Alone && err == nil && len(u) > 0 && string(u) != "null" {
		aux["usage"] = u // no answer record to carry it
	}
	sum := c.Summary(o.from, covered, aux)
	_ = sum.Metadata.Timing.Set("llmEnd", now)
	recs := []transcript.Record{sum}
	if !c.Alone {
		rec := ans.Record
		_ = rec.Metadata.Timing.Set("llmEnd", now)
		recs = append(recs, rec)
	}
	_ = an.Apply(&recs[len(recs)-1]) // annotationFlags checked the keys
	for i := range recs {
		if err := transcript.Validate(&recs[i]); err != nil {
			return err
		}
	}
	if ans.ResponseID != "" {
		at := ans.Created
		if at.IsZero() {
			at = time.UnixMilli(now)
		}
		before, _, err := a.storedTail(ctx, o.conversation)
		if err != nil {
			return err
		}
		// The summary's source is the response's compaction; the answer
		// follows it, 1 ms later at least, so ids keep their order.
		recs[0].ID = fromAnswerID(at, o.from, ans.ResponseID+"\x00compaction", before)
		if len(recs) > 1 {
			recs[1].ID = fromAnswerID(at, o.from, ans.ResponseID, append(before, recs[0]))
		}
	}
	a.warnf("%s compaction: a summary standing for %s (kept), %s", o.from, plural(len(covered), "record"), compactionNote(c))
	// Stored only if nothing came after what the summary covers.
	return a.appendStored(ctx, o, store.Records(recs...), last)
}

// compactionNote says what render sends of a compaction.
func compactionNote(c *format.Compaction) string {
	if c.Text == "" {
		return "sent back as given; with no readable summary, other providers are sent the records it covers"
	}
	return "sent back as given; other providers are sent its summary"
}

// compactionCovers reads the ids of conv's stored view that a compaction
// answering a request rendered from it replaces, and the conversation's
// last record as read.
func (a *Factory) compactionCovers(ctx context.Context, conv string) ([]string, store.Last, error) {
	var last store.Last
	s, err := a.Store(ctx)
	if err != nil {
		return nil, last, err
	}
	var ids []string
	err = s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		var r transcript.Record
		if err := transcript.DecodeStored(row.Body, &r); err != nil {
			return err
		}
		if transcript.CompactionCovers(&r) {
			ids = append(ids, r.ID)
		}
		last = store.Last{ID: r.ID, Seq: row.Seq}
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, last, err
	}
	return ids, last, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
