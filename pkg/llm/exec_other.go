//go:build !unix

package llm

import "os/exec"

// killGroup: without process groups, the default (kill the shell) stands.
func killGroup(*exec.Cmd) {}
