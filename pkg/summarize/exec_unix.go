//go:build unix

package summarize

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in a process group of its own and kills the
// whole group on timeout or cancel (convo interrupted): sh -c 'a | b'
// leaves children that killing sh alone would orphan. Its own group keeps
// a terminal's Ctrl-C from reaching it before convo decides; where the
// system can, it also dies with convo (see dieWithParent), which a
// SIGKILL gives no time to clean up after.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
