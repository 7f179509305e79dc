package transcript

import (
	"errors"
	"io"
)

// Stream is a sequence of records, pushed: it calls yield for each record
// in order and returns the first error, yield's (which stops it) or its
// own; nil once every record was yielded. The pointer is valid only
// during the call; what the record holds may be reused after it too,
// unless the producer says otherwise (Slice, a Decoder's and a Staged's
// never reuse it, so a consumer may keep a copy of *r: the store's
// appends do).
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
		var r Record // one for all: &r escapes to yield, a record each would be an allocation each
		for {
			var err error
			r, err = next()
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
