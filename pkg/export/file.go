package export

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// File is an export log on disk (--to file://PATH): records are appended,
// and Sync makes them durable before a cursor moves. One File is written by
// one export at a time (an exclusive lock on the file), and a torn last
// line that a killed writer left behind is cut off before anything is
// appended, so no record is ever glued onto a fragment.
type File struct {
	f *os.File
	// Torn is how many bytes of a torn last line were cut off on open.
	Torn int64
}

// OpenFile opens (creating it with mode 0600) the log at path for appending.
func OpenFile(path string) (*File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	torn, err := cutTornLine(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &File{f: f, Torn: torn}, nil
}

// cutTornLine truncates f after its last newline and leaves the offset at
// the end. A file that ends in a newline, or is empty, is left alone.
func cutTornLine(f *os.File) (int64, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil || size == 0 {
		return 0, err
	}
	buf := make([]byte, 64<<10)
	end := size
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		if end == size && buf[n-1] == '\n' {
			return 0, nil
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			end = end - n + int64(i) + 1
			break
		}
		end -= n
	}
	if err := f.Truncate(end); err != nil {
		return 0, err
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		return 0, err
	}
	return size - end, nil
}

// Write appends p; the format's Writer in front of it buffers.
func (l *File) Write(p []byte) (int, error) { return l.f.Write(p) }

// Sync waits until the disk holds what was written: call it before a
// cursor moves.
func (l *File) Sync() error { return l.f.Sync() }

// Close closes the file; closing it twice is no error. It does not sync:
// an export that moves no cursor needs no wait for the disk.
func (l *File) Close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
