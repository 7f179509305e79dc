//go:build unix

package export

import (
	"io/fs"
	"syscall"
)

// openFlags keep OpenFile from following a symbolic link planted at the
// path, from waiting on a FIFO for a reader, and from taking a terminal as
// the process's own: what is not a regular file is then refused.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_NOCTTY

// fileID returns the device and inode of fi, which tell a file from
// another put in its place.
func fileID(fi fs.FileInfo) (dev, inode uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
