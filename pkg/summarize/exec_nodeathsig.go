//go:build unix && !linux

package summarize

import "syscall"

// dieWithParent: no parent-death signal here; the process group is killed
// on cancel only.
func dieWithParent(*syscall.SysProcAttr) {}
