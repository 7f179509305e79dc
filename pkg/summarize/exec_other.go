//go:build !unix

package summarize

import "os/exec"

// runCommand runs cmd: without process groups, the default (kill the
// shell) stands.
func runCommand(cmd *exec.Cmd) error { return cmd.Run() }
