//go:build !unix

package export

import "io/fs"

// openFlags: without O_NOFOLLOW, OpenFile relies on its look before the open.
const openFlags = 0

// fileID knows no file identity here: a file replaced by another of the
// same path is not told apart.
func fileID(fs.FileInfo) (dev, inode uint64) { return 0, 0 }
