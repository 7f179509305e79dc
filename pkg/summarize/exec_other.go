//go:build !unix

package summarize

import "os/exec"

// killGroup: without process groups, the default (kill the shell) stands.
func killGroup(*exec.Cmd) {}
