// Package buildinfo says which build convo is: its version, commit and
// build date, from the linker flags make build sets (in cmd) or, without
// them, from what the go command stamped into the binary.
package buildinfo

import (
	"runtime/debug"
	"strings"
	"time"
)

// String is the version, then the commit and the build date when known:
// from the linker flags first (version, commit, date), else from the
// module version and the vcs.* settings the go command records in bi
// (which may be nil). vcs.time is the commit's time, not the build's, and
// is named so.
func String(version, commit, date string, bi *debug.BuildInfo) string {
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

// Release is the version alone ("v1.2.0", "devel"), as String starts, and
// when the binary was built (else when its commit was made; the zero time
// when neither is known): what a man page's footer shows.
func Release(version, commit, date string, bi *debug.BuildInfo) (string, time.Time) {
	v, _, _ := strings.Cut(String(version, commit, date, bi), " (")
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
