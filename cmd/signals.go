package cmd

import (
	"os"
	"os/signal"
	"syscall"
)

// handleSIGPIPE turns a write to a stdout nobody reads into an EPIPE error
// instead of death by SIGPIPE (Go's default for file descriptors 1 and 2):
// a command whose change committed must exit 0 and say that its output
// was lost (see undeliveredError), and one that stored nothing exits
// ExitBrokenPipe. Notify, not Ignore: an ignored signal stays ignored in
// the commands we start (the exec summarizer), a handled one does not.
func handleSIGPIPE() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}
