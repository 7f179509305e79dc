package store

import (
	"fmt"
	"strings"
)

// CheckGlob refuses a malformed PruneOptions.Glob: a [ that no ] closes
// (a set's first ], or the one after ^, is a member). Such a glob would
// match nothing on SQLite and itself on PostgreSQL: neither is meant.
func CheckGlob(glob string) error {
	for i := 0; i < len(glob); i++ {
		if glob[i] != '[' {
			continue
		}
		j := i + 1
		if j < len(glob) && glob[j] == '^' {
			j++
		}
		if j < len(glob) && glob[j] == ']' {
			j++
		}
		end := strings.IndexByte(glob[j:], ']')
		if end < 0 {
			return fmt.Errorf("malformed glob: the [ at byte %d is never closed by ] (a set: [abc], [^abc])", i+1)
		}
		i = j + end
	}
	return nil
}
