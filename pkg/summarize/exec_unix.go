//go:build unix

package summarize

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// watchdog is the process that kills the command's process group when
// convo dies, SIGKILL included: it reads a pipe whose only writer is
// convo, which the kernel closes however convo ends. The group is the
// watchdog's own, so it dies with the rest.
const watchdog = `read _; kill -s KILL 0`

// runCommand runs cmd in a process group of its own and kills the whole
// group on timeout or cancel (convo interrupted): sh -c 'a | b' leaves
// children that killing sh alone would orphan. Its own group keeps a
// terminal's Ctrl-C from reaching it before convo decides.
//
// When convo dies without a chance to clean up (SIGKILL, a crash), the
// watchdog, first of the group, kills it: the command, the processes it
// started and theirs, while they stay in the group. What a command moves
// out of it (setsid, a daemon, a shell's job control) runs on. Where the
// system can, the command also dies with convo by itself (dieWithParent).
func runCommand(cmd *exec.Cmd) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	defer w.Close()
	guard := exec.Command("sh", "-c", watchdog)
	guard.Stdin = r
	guard.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = guard.Start()
	r.Close()
	if err != nil {
		return fmt.Errorf("exec: start the command's watchdog: %w", err)
	}
	group := guard.Process.Pid
	defer func() {
		// The command is done: the watchdog alone goes (what the command
		// left running is no concern of a live convo's). Until reaped it
		// keeps its pid, so the kill cannot hit another process.
		guard.Process.Kill()
		guard.Wait()
	}()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: group}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-group, syscall.SIGKILL) }
	return cmd.Run()
}
