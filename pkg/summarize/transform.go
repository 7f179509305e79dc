package summarize

import (
	"context"
	"io"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Transform summarizes a transcript without a store: it reads records and
// messages from in under the rules of SPEC section 2 and writes the
// transcript, summary placed, to out. Only the records from the latest
// summary on are held in memory; the ones before it are written as they
// come. Under r.DryRun nothing is written and the result holds the text;
// with nothing to summarize the transcript passes through unchanged and the
// result says why.
func Transform(ctx context.Context, r *Runner, in io.Reader, out io.Writer) (Result, error) {
	enc := transcript.NewEncoder(out)
	var tail []transcript.Record
	index := map[string]int{}
	app := transcript.NewAppender("", nil, r.ids(), r.nowMillis)
	err := transcript.ApplyRules(transcript.NewDecoder(in), app, func(ch transcript.Change) error {
		if ch.Kind == transcript.Merged {
			tail[index[ch.Record.ID]] = ch.Record.Clone()
			return nil
		}
		if ch.Record.Message.Role == transcript.RoleSummary {
			// Everything before a summary is settled: write it out.
			if !r.DryRun {
				if err := encodeAll(enc, tail); err != nil {
					return err
				}
			}
			tail = tail[:0]
			clear(index)
		}
		index[ch.Record.ID] = len(tail)
		tail = append(tail, ch.Record.Clone())
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	sum, res, err := r.summarize(ctx, tail)
	res.Conversation = app.Conversation
	if err != nil || r.DryRun {
		return res, err
	}
	if sum != nil {
		sum.record.Conversation = app.Conversation
		if sum.placeholder != nil {
			sum.placeholder.Conversation = app.Conversation
		}
		tail = transcript.PlaceSummary(tail, sum.record, sum.span, r.DeleteOriginals, sum.after()...)
		res.Summary = &sum.record
	}
	if err := encodeAll(enc, tail); err != nil {
		return res, err
	}
	return res, enc.Flush()
}

func encodeAll(enc *transcript.Encoder, recs []transcript.Record) error {
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}
