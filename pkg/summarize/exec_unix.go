//go:build unix

package summarize

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in a process group of its own and kills the
// whole group on timeout: sh -c 'a | b' leaves children that killing sh
// alone would orphan.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
