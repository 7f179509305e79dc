//go:build !unix

package export

import "os"

// lockFile does nothing where flock is missing: run one export per file.
func lockFile(*os.File) error { return nil }
