//go:build unix && !linux

package summarize

import "syscall"

// dieWithParent: no parent-death signal here; the watchdog alone kills
// the process group when convo dies (see runCommand).
func dieWithParent(*syscall.SysProcAttr) {}
