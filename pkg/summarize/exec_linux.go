package summarize

import "syscall"

// dieWithParent has the kernel kill the command when convo dies, however
// it dies, SIGKILL included (Pdeathsig). Strictly it fires when the OS
// thread that started the command ends; Go ends a thread only when a
// goroutine locked to it exits, which convo's never do.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
