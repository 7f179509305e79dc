//go:build unix

package export

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, waiting for another export to the
// same file to finish; the lock goes with the file's close or the process.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
}
