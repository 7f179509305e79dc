package export

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// File is an export log on disk (--to file://PATH): records are appended,
// and Sync makes them durable before a cursor moves. One File is written by
// one export at a time (an exclusive lock on the file). A torn last line is
// cut off before anything is appended, so no record is ever glued onto a
// fragment, but only one an export of ours left: the caller records the
// file's State before its first write and after its last (see OpenFile).
type File struct {
	f    *os.File
	path string
	// Torn is how many bytes of a torn last line were cut off on open.
	Torn int64
}

// FileState is a log file as an export records it: which file (device and
// inode) and its length. Writing says an export was appending past Size
// and did not complete, so a torn line past Size is its own.
type FileState struct {
	Dev, Inode uint64
	Size       int64
	Writing    bool
}

var (
	// ErrSymlink is a log path that is a symbolic link: appending to
	// wherever it points is what an attacker who planted it wants.
	ErrSymlink = errors.New("is a symbolic link; not followed")
	// ErrNotRegular is a log path that is a directory, a FIFO, a device or
	// a socket.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrForeignTail is a log that does not end in a newline where no
	// interrupted export of ours left it so: its last bytes are someone
	// else's, and neither cutting them nor gluing a record to them is ours
	// to do.
	ErrForeignTail = errors.New("does not end in a newline, and no interrupted export of this store left it so; refusing to append to it")
)

// OpenFile opens (creating it with mode 0600) the regular file at path for
// appending and locks it. A file that does not end in a newline has its
// torn last line cut off only when recorded, asked then, says an export
// was writing past its length and that line lies wholly past it, in the
// same file; otherwise OpenFile fails with ErrForeignTail and leaves the
// file as it was. recorded may be nil: nothing is known.
func OpenFile(path string, recorded func() (FileState, bool, error)) (*File, error) {
	// Refuse what is no regular file before opening it: opening a device
	// or a FIFO can have effects of its own. The flags close the gap
	// between this look and the open.
	if fi, err := os.Lstat(path); err == nil {
		if err := regular(path, fi); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|openFlags, 0o600)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s %w", path, ErrSymlink)
		}
		return nil, err
	}
	l := &File{f: f, path: path}
	if err := l.open(recorded); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

func (l *File) open(recorded func() (FileState, bool, error)) error {
	fi, err := l.f.Stat()
	if err != nil {
		return err
	}
	if err := regular(l.path, fi); err != nil {
		return err
	}
	if err := lockFile(l.f); err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	size, err := l.f.Seek(0, io.SeekEnd) // the size now we hold the lock
	if err != nil {
		return fmt.Errorf("%s: %w", l.path, err)
	}
	last, err := lastLineStart(l.f, size)
	if err != nil || last == size {
		return err // empty, or ends in a newline
	}
	var st FileState
	ok := false
	if recorded != nil {
		if st, ok, err = recorded(); err != nil {
			return err
		}
	}
	dev, inode := fileID(fi)
	if !ok || !st.Writing || st.Dev != dev || st.Inode != inode || st.Size > last || !l.newlineBefore(st.Size) {
		return fmt.Errorf("%s %w (its last %d bytes are not a whole line)", l.path, ErrForeignTail, size-last)
	}
	if err := l.f.Truncate(last); err != nil {
		return fmt.Errorf("%s: %w", l.path, err)
	}
	if _, err := l.f.Seek(last, io.SeekStart); err != nil {
		return fmt.Errorf("%s: %w", l.path, err)
	}
	l.Torn = size - last
	return nil
}

// regular refuses a path that is no regular file, naming it.
func regular(path string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %w", path, ErrSymlink)
	case m.IsDir():
		return fmt.Errorf("%s %w: a directory", path, ErrNotRegular)
	case m&fs.ModeNamedPipe != 0:
		return fmt.Errorf("%s %w: a FIFO", path, ErrNotRegular)
	case m&fs.ModeDevice != 0:
		return fmt.Errorf("%s %w: a device", path, ErrNotRegular)
	default:
		return fmt.Errorf("%s %w (mode %s)", path, ErrNotRegular, m)
	}
}

// newlineBefore reports whether the file's byte before offset n is a
// newline, as it was where an export recorded the file's length (an empty
// file counts): a file rewritten since most likely shows otherwise.
func (l *File) newlineBefore(n int64) bool {
	if n == 0 {
		return true
	}
	var b [1]byte
	_, err := l.f.ReadAt(b[:], n-1)
	return err == nil && b[0] == '\n'
}

// lastLineStart returns the offset right after f's last newline within
// its first size bytes (0: none); size itself when the file is empty or
// ends in a newline.
func lastLineStart(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	end := size
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// State returns the file as it stands: which file, and its length.
func (l *File) State() (FileState, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return FileState{}, err
	}
	dev, inode := fileID(fi)
	return FileState{Dev: dev, Inode: inode, Size: fi.Size()}, nil
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
