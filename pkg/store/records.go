package store

import (
	"io"

	"github.com/convo-cli/convo/pkg/transcript"
)

// Records is the next function Append and its kin take: it yields recs in
// order, then io.EOF.
func Records(recs ...transcript.Record) func() (transcript.Record, error) {
	return func() (transcript.Record, error) {
		if len(recs) == 0 {
			return transcript.Record{}, io.EOF
		}
		r := recs[0]
		recs = recs[1:]
		return r, nil
	}
}
