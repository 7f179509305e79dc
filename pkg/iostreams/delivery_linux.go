package iostreams

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// waitRead returns once the reader of the pipe f has read every byte written
// to it, and ErrUndelivered if it is gone first. It then waits grace more
// for the reader to go away: a reader that reads until end of file (cat,
// jq, a shell loop) is still there, while one that stopped early after a
// read of everything at once (head -1) quits without waiting for the end.
// Anything but a pipe counts as delivered once written.
func waitRead(ctx context.Context, f *os.File, grace time.Duration) error {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	delay := time.Millisecond
	for {
		var unread int
		var ierr error
		var gone bool
		cerr := rc.Control(func(fd uintptr) {
			unread, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) // FIONREAD
			gone = readerGone(fd, 0)
		})
		switch {
		case cerr != nil || ierr != nil:
			return nil // not knowable here: written is the best we know
		case gone && unread > 0:
			return fmt.Errorf("%w (%d bytes unread)", ErrUndelivered, unread)
		case gone:
			return ErrUndelivered
		case unread == 0:
			if rc.Control(func(fd uintptr) { gone = readerGone(fd, grace) }) == nil && gone {
				return ErrUndelivered
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// readerGone reports whether the pipe's write end fd has no reader left,
// waiting up to wait for it to go: poll reports POLLERR on the write end
// of a pipe whose readers are all closed.
func readerGone(fd uintptr, wait time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(fd)}}
	n, err := unix.Poll(fds, int(wait.Milliseconds()))
	return err == nil && n > 0 && fds[0].Revents&unix.POLLERR != 0
}
