package ask

import (
	"context"
	"io"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// HistoryReader is the part of a store FullHistory reads; store.Store is
// one.
type HistoryReader interface {
	Read(ctx context.Context, conv string, opt store.ReadOptions, fn func(store.Row) error) error
}

// FullHistory is render --full's input: every record of conv in s (or, s
// nil, of the transcript on in, its decoder's notes to warn), summaries
// left out, as JSONL; render then sees the whole history as if nothing had
// been summarized. It streams through a pipe, which the caller closes.
func FullHistory(ctx context.Context, s HistoryReader, conv string, in io.Reader, warn func(line int, msg string)) *io.PipeReader {
	pr, pw := io.Pipe()
	go func() {
		enc := transcript.NewEncoder(pw)
		var err error
		if s != nil {
			err = s.Read(ctx, conv, store.ReadOptions{}, func(row store.Row) error {
				if transcript.Role(row.Role) == transcript.RoleSummary {
					return nil
				}
				return enc.WriteLine(row.Body)
			})
		} else {
			err = historyOf(in, enc, warn)
		}
		if err == nil {
			err = enc.Flush()
		}
		pw.CloseWithError(err)
	}()
	return pr
}

// historyOf writes the records of the transcript on in but its summaries.
func historyOf(in io.Reader, enc *transcript.Encoder, warn func(line int, msg string)) error {
	dec := transcript.NewDecoder(in)
	dec.Warn = warn
	for {
		r, err := dec.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if r.Message.Role != transcript.RoleSummary {
			if err := enc.Encode(&r); err != nil {
				return err
			}
		}
	}
}
