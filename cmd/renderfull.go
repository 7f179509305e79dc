package cmd

import (
	"context"
	"io"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// fullHistory is render --full's input: every record of the stored
// conversation (or of the transcript on in, when conv is ""), summaries
// left out, as JSONL; render then sees the whole history as if nothing had
// been summarized. It streams through a pipe, which the caller closes.
func fullHistory(ctx context.Context, a *Factory, conv string, in io.Reader) (*io.PipeReader, error) {
	var s store.Store
	if conv != "" {
		var err error
		if s, err = a.ReadStore(ctx); err != nil {
			return nil, err
		}
	}
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
			dec := transcript.NewDecoder(in)
			dec.Warn = func(line int, msg string) { a.warnf("line %d: %s", line, msg) }
			for {
				var r transcript.Record
				if r, err = dec.Next(); err != nil {
					break
				}
				if r.Message.Role != transcript.RoleSummary {
					if err = enc.Encode(&r); err != nil {
						break
					}
				}
			}
			if err == io.EOF {
				err = nil
			}
		}
		if err == nil {
			err = enc.Flush()
		}
		pw.CloseWithError(err)
	}()
	return pr, nil
}
