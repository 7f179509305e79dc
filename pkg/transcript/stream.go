package transcript

import (
	"errors"
	"io"
)

// Stream is a sequence of records, pushed: it calls yield for each record
// in order and returns the first error, yield's (which stops it) or its
// own; nil once every record was yielded. The record is the consumer's
// only during the call unless the producer says otherwise (Slice, a
// Decoder's and a Staged's hand over records nobody else uses, so the
// store's appends keep them).
type Stream func(yield func(*Record) error) error

// Slice is the stream of recs, in order: yield gets pointers into recs.
func Slice(recs ...Record) Stream {
	return func(yield func(*Record) error) error {
		for i := range recs {
			if err := yield(&recs[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// Stream is the records the decoder reads, each a new one.
func (d *Decoder) Stream() Stream { return pull(d.Next) }

// Stream is the staged records, each a new one.
func (s *Staged) Stream() Stream { return pull(s.Next) }

// pull is the stream of what next returns, until io.EOF.
func pull(next func() (Record, error)) Stream {
	return func(yield func(*Record) error) error {
		for {
			r, err := next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := yield(&r); err != nil {
				return err
			}
		}
	}
}
