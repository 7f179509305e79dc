package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Compacted is what a provider's compaction makes of a stored conversation.
type Compacted struct {
	// Records are the summary standing for the compaction, then the answer
	// that came with it, if any, validated and with their ids.
	Records []transcript.Record
	// Covered counts the stored records the summary stands for (kept).
	Covered int
	// Last is the conversation's last record as read: append Records only
	// if it still is (store.AppendAfter), so that nothing came after what
	// the summary covers.
	Last store.Last
}

// Compaction is provider's answer ans holding a compaction (ans.Compaction
// set), as records for conv (SPEC section 7, provider compaction): a
// summary record standing for what the request was rendered from (the
// stored view), then the answer that came with it, if any; an applies to
// the last of them. now is when the body was read, in Unix milliseconds.
func Compaction(ctx context.Context, s Reader, conv, provider string, ans *format.Answer, an *transcript.Annotation, now int64) (Compacted, error) {
	c := ans.Compaction
	covered, last, err := covers(ctx, s, conv)
	if err != nil {
		return Compacted{}, err
	}
	if len(covered) == 0 {
		return Compacted{}, &transcript.InputError{Err: fmt.Errorf("%s response body holds a compaction, but conversation %q holds nothing it could stand for; nothing appended", provider, conv)}
	}
	aux := map[string]json.RawMessage{"provider": jsonString(provider), "summarizer": jsonString(format.CompactionSummarizer(provider))}
	if ans.Model != "" {
		aux["model"] = jsonString(ans.Model)
	}
	if ans.ResponseID != "" {
		aux["response_id"] = jsonString(ans.ResponseID)
	}
	if u, err := transcript.CompactJSON(ans.Usage.Raw); c.Alone && err == nil && len(u) > 0 && string(u) != "null" {
		aux["usage"] = u // no answer record to carry it
	}
	sum := c.Summary(provider, covered, aux)
	_ = sum.Metadata.Timing.Set("llmEnd", now)
	recs := []transcript.Record{sum}
	if !c.Alone {
		rec := ans.Record
		_ = rec.Metadata.Timing.Set("llmEnd", now)
		recs = append(recs, rec)
	}
	if err := an.Apply(&recs[len(recs)-1]); err != nil {
		return Compacted{}, err
	}
	for i := range recs {
		if err := transcript.Validate(&recs[i]); err != nil {
			return Compacted{}, err
		}
	}
	if ans.ResponseID != "" {
		at := Time(ans, now)
		before, _, err := Tail(ctx, s, conv)
		if err != nil {
			return Compacted{}, err
		}
		// The summary's source is the response's compaction; the answer
		// follows it, 1 ms later at least, so ids keep their order.
		recs[0].ID = ID(at, provider, ans.ResponseID+"\x00compaction", before)
		if len(recs) > 1 {
			recs[1].ID = ID(at, provider, ans.ResponseID, append(before, recs[0]))
		}
	}
	return Compacted{Records: recs, Covered: len(covered), Last: last}, nil
}

// CompactionNote says what render sends of a compaction.
func CompactionNote(c *format.Compaction) string {
	if c.Text == "" {
		return "sent back as given; with no readable summary, other providers are sent the records it covers"
	}
	return "sent back as given; other providers are sent its summary"
}

// covers reads the ids of conv's stored view that a compaction answering a
// request rendered from it replaces, and the conversation's last record as
// read.
func covers(ctx context.Context, s Reader, conv string) ([]string, store.Last, error) {
	var last store.Last
	var ids []string
	err := s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
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
