package cmd

import (
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
	return versionString(version, commit, date, bi)
}

// versionString is the version, then the commit and the build date when
// known: from the linker flags first, else from the module version and the
// vcs.* settings the go command records. vcs.time is the commit's time, not
// the build's, and is named so.
func versionString(version, commit, date string, bi *debug.BuildInfo) string {
	vcs := map[string]string{}
	if bi != nil {
		if version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			vcs[s.Key] = s.Value
		}
	}
	if version == "" {
		version = "devel"
	}
	if commit == "" && vcs["vcs.revision"] != "" {
		// make build marks a dirty tree in the commit itself; the go
		// command says it apart.
		commit = vcs["vcs.revision"]
		if vcs["vcs.modified"] == "true" {
			commit += "-dirty"
		}
	}
	if hash, dirty := strings.CutSuffix(commit, "-dirty"); len(hash) > 12 {
		commit = hash[:12]
		if dirty {
			commit += "-dirty"
		}
	}
	details := []string{"commit unknown"}
	if commit != "" {
		details[0] = "commit " + commit
	}
	switch {
	case date != "":
		details = append(details, "built "+date)
	case vcs["vcs.time"] != "":
		details = append(details, "committed "+vcs["vcs.time"])
	default:
		details = append(details, "build date unknown")
	}
	return version + " (" + strings.Join(details, ", ") + ")"
}

// Release is the version alone ("v1.2.0", "devel"), as --version starts,
// and when the binary was built (else when its commit was made; the zero
// time when neither is known): what a man page's footer shows.
func Release() (string, time.Time) {
	bi, _ := debug.ReadBuildInfo()
	v, _, _ := strings.Cut(versionString(version, commit, date, bi), " (")
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		return v, t
	}
	if bi != nil {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" {
				t, _ := time.Parse(time.RFC3339, s.Value)
				return v, t
			}
		}
	}
	return v, time.Time{}
}

// NewRootCmd returns convo's command tree on the process's streams, for
// tools that walk it (cmd/genman writes the man pages from it).
func NewRootCmd() *cobra.Command {
	app := &Factory{IO: iostreams.System(), Now: time.Now, IDs: transcript.NewIDs()}
	return newRootCmd(app)
}
