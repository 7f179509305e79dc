package cmd

import (
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/buildinfo"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Set at build time by make build:
//
//	-ldflags "-X github.com/convo-cli/convo/cmd.version=... -X ...cmd.commit=... -X ...cmd.date=..."
//
// A build without them (go build, go install) falls back on what the Go
// toolchain stamped into the binary (debug.ReadBuildInfo).
var version, commit, date string

// Version is what convo --version prints after "convo version ".
func Version() string {
	bi, _ := debug.ReadBuildInfo()
	return buildinfo.String(version, commit, date, bi)
}

// Release is the version alone ("v1.2.0", "devel"), as --version starts,
// and when the binary was built (else when its commit was made; the zero
// time when neither is known): what a man page's footer shows.
func Release() (string, time.Time) {
	bi, _ := debug.ReadBuildInfo()
	return buildinfo.Release(version, commit, date, bi)
}

// NewRootCmd returns convo's command tree on the process's streams, for
// tools that walk it (cmd/genman writes the man pages from it).
func NewRootCmd() *cobra.Command {
	app := &Factory{IO: iostreams.System(), Now: time.Now, IDs: transcript.NewIDs()}
	return newRootCmd(app)
}
