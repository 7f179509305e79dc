package answer

import (
	"context"
	"fmt"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Record is provider's answer ans (no compaction) as the record append
// --from adds, now being when its body was read (Unix milliseconds): its
// llmEnd then, since the body arrived when the call ended, unless an (the
// --timing and --aux flags) says otherwise; guard refuses a record that
// holds a key. The record is validated; its id is Alone's or Place's.
func Record(provider string, ans *format.Answer, an *transcript.Annotation, guard func(*transcript.Record) error, now int64) (transcript.Record, error) {
	rec := ans.Record
	_ = rec.Metadata.Timing.Set("llmEnd", now)
	if err := an.Apply(&rec); err != nil {
		return transcript.Record{}, err
	}
	if err := guard(&rec); err != nil {
		return transcript.Record{}, fmt.Errorf("%s answer: %w; nothing appended", provider, err)
	}
	if err := transcript.Validate(&rec); err != nil {
		return transcript.Record{}, err
	}
	return rec, nil
}

// Alone makes rec, Record's for ans, a record printed without a stored
// conversation (append --from without -c): its id from the response id
// (ID, nothing known before), else newID's; the default conversation;
// created now.
func Alone(rec transcript.Record, provider string, ans *format.Answer, newID func() string, now int64) transcript.Record {
	rec.ID = ID(Time(ans, now), provider, ans.ResponseID, nil)
	if rec.ID == "" {
		rec.ID = newID()
	}
	rec.Conversation = transcript.DefaultConversation
	rec.Metadata.Timing.Creation = now
	return rec
}

// Place gives rec, Record's for ans, the id it takes in the stored
// conversation conv when the response has an id: ID's, judged against
// conv's last records (Tail). Without one rec keeps its id, and the append
// gives it an ordinary one.
func Place(ctx context.Context, s Reader, conv, provider string, ans *format.Answer, rec *transcript.Record, now int64) error {
	if ans.ResponseID == "" {
		return nil
	}
	before, _, err := Tail(ctx, s, conv)
	if err != nil {
		return err
	}
	rec.ID = ID(Time(ans, now), provider, ans.ResponseID, before)
	return nil
}
