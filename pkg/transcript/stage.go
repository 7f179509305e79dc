package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Staged is input read and checked to the end before any write begins, so
// that no write transaction waits on a slow producer (a pipe that pauses
// would hold the store's write lock otherwise). Records are kept in their
// canonical form, compact and read back by the fast decoder: in memory up
// to a bound, past it in a temporary file.
type Staged struct {
	buf  []byte // canonical lines, while in memory
	file *os.File
	w    *bufio.Writer
	r    *bufio.Reader
}

// DefaultStageMemory is how much input Stage holds in memory before it
// spills to a temporary file.
const DefaultStageMemory = 8 << 20

// Stage reads every record of recs, calling edit on each (nil for none);
// the first error stops it. Close the result when done.
func Stage(recs Stream, edit func(*Record) error, memory int) (*Staged, error) {
	s := &Staged{}
	err := recs(func(r *Record) error {
		if edit != nil {
			if err := edit(r); err != nil {
				return err
			}
		}
		return s.add(r, memory)
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	var src io.Reader = bytes.NewReader(s.buf)
	if s.file != nil {
		if err := s.w.Flush(); err != nil {
			s.Close()
			return nil, fmt.Errorf("stage input: %w", err)
		}
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			s.Close()
			return nil, fmt.Errorf("stage input: %w", err)
		}
		src = s.file
	}
	s.r = bufio.NewReaderSize(src, 64<<10)
	return s, nil
}

func (s *Staged) add(r *Record, memory int) error {
	if s.file != nil {
		b := append(AppendJSON(s.buf[:0], r), '\n')
		s.buf = b
		if _, err := s.w.Write(b); err != nil {
			return fmt.Errorf("stage input: %w", err)
		}
		return nil
	}
	s.buf = append(AppendJSON(s.buf, r), '\n')
	if len(s.buf) <= memory {
		return nil
	}
	f, err := os.CreateTemp("", "convo-stage-*.jsonl")
	if err != nil {
		return fmt.Errorf("stage input: %w", err)
	}
	// Unlinked at once: the file goes with the process, whatever happens.
	os.Remove(f.Name())
	s.file, s.w = f, bufio.NewWriterSize(f, 64<<10)
	if _, err := s.w.Write(s.buf); err != nil {
		return fmt.Errorf("stage input: %w", err)
	}
	s.buf = make([]byte, 0, 4096)
	return nil
}

// Next yields the staged records in order, then io.EOF. Each record is
// fresh: the caller may keep it.
func (s *Staged) Next() (Record, error) {
	line, err := s.r.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(line) == 0 {
		return Record{}, io.EOF
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return Record{}, fmt.Errorf("read staged input: %w", err)
	}
	var r Record
	if err := DecodeStored(bytes.TrimSuffix(line, []byte{'\n'}), &r); err != nil {
		return Record{}, fmt.Errorf("read staged input: %w", err)
	}
	return r, nil
}

// Close releases the temporary file, if any.
func (s *Staged) Close() error {
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}
