package transcript

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Staged is input read and checked to the end before any write begins, so
// that no write transaction waits on a slow producer (a pipe that pauses
// holds the store's write lock otherwise). Up to a memory bound the records
// are held; past it they go to a temporary file, read back in order.
type Staged struct {
	recs  []Record
	bytes int64
	file  *os.File
	w     *bufio.Writer
	r     *bufio.Reader
	next  int
}

// DefaultStageMemory is how much input Stage holds in memory before it
// spills to a temporary file.
const DefaultStageMemory = 64 << 20

// Stage reads every record next yields, until io.EOF, calling edit on each
// (nil for none); the first error stops it. Close the result when done.
func Stage(next func() (Record, error), edit func(*Record) error, memory int64) (*Staged, error) {
	s := &Staged{}
	for {
		r, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil && edit != nil {
			err = edit(&r)
		}
		if err == nil {
			err = s.add(r, memory)
		}
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	if s.file != nil {
		if err := s.w.Flush(); err != nil {
			s.Close()
			return nil, fmt.Errorf("stage input: %w", err)
		}
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			s.Close()
			return nil, fmt.Errorf("stage input: %w", err)
		}
		s.r = bufio.NewReaderSize(s.file, 64<<10)
	}
	return s, nil
}

func (s *Staged) add(r Record, memory int64) error {
	if s.file == nil {
		s.recs = append(s.recs, r)
		s.bytes += recordSize(&r)
		if s.bytes <= memory {
			return nil
		}
		f, err := os.CreateTemp("", "convo-stage-*.jsonl")
		if err != nil {
			return fmt.Errorf("stage input: %w", err)
		}
		// Unlinked at once: the file goes with the process, whatever happens.
		os.Remove(f.Name())
		s.file, s.w = f, bufio.NewWriterSize(f, 64<<10)
		for i := range s.recs {
			if err := s.spill(&s.recs[i]); err != nil {
				return err
			}
		}
		s.recs = nil
		return nil
	}
	return s.spill(&r)
}

func (s *Staged) spill(r *Record) error {
	b := AppendJSON(nil, r)
	b = append(b, '\n')
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("stage input: %w", err)
	}
	return nil
}

// recordSize approximates the memory a record holds.
func recordSize(r *Record) int64 {
	n := int64(len(r.ID) + len(r.Conversation) + 200)
	for _, c := range r.Message.Contents {
		n += int64(len(c)) + 16
	}
	for _, c := range r.Message.ToolCalls {
		n += int64(len(c.ID)+len(c.Name)+len(c.Arguments)) + 48
	}
	for k, v := range r.Metadata.Aux {
		n += int64(len(k) + len(v))
	}
	return n
}

// Spilled reports whether the input went to a temporary file.
func (s *Staged) Spilled() bool { return s.file != nil }

// Next yields the staged records in order, then io.EOF.
func (s *Staged) Next() (Record, error) {
	if s.r == nil {
		if s.next == len(s.recs) {
			return Record{}, io.EOF
		}
		s.next++
		return s.recs[s.next-1], nil
	}
	line, err := s.r.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(line) == 0 {
		return Record{}, io.EOF
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return Record{}, fmt.Errorf("read staged input: %w", err)
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
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
