package buildinfo

import (
	"runtime/debug"
	"testing"
	"time"
)

// --version says which build it is: the version, the commit and the build
// date from make build's linker flags, else what the go command stamped.
func TestString(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "98ceb52c0123456789abcdef"},
		{Key: "vcs.time", Value: "2026-11-20T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"make build", "v0.4.0-3-g98ceb52", "98ceb52c0123456789abcdef", "2026-11-23T16:51:48Z", nil,
			"v0.4.0-3-g98ceb52 (commit 98ceb52c0123, built 2026-11-23T16:51:48Z)"},
		{"make build, dirty tree", "98ceb52-dirty", "98ceb52c0123456789abcdef-dirty", "2026-11-23T16:51:48Z", nil,
			"98ceb52-dirty (commit 98ceb52c0123-dirty, built 2026-11-23T16:51:48Z)"},
		{"go install of a tag", "", "", "", stamped, "v1.2.3 (commit 98ceb52c0123-dirty, committed 2026-11-20T10:00:00Z)"},
		{"linker flags win", "v9", "abc", "2026-01-01T00:00:00Z", stamped, "v9 (commit abc, built 2026-01-01T00:00:00Z)"},
		{"nothing known", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel (commit unknown, build date unknown)"},
	}
	for _, tt := range tests {
		if got := String(tt.version, tt.commit, tt.date, tt.bi); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A man page's footer: the version alone, and the build date, else the
// commit's, else none.
func TestRelease(t *testing.T) {
	if v, at := Release("v1.2.0", "abc", "2026-11-23T16:51:48Z", nil); v != "v1.2.0" || at.Format(time.RFC3339) != "2026-11-23T16:51:48Z" {
		t.Errorf("linker flags: %q %v", v, at)
	}
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "2026-11-20T10:00:00Z"}}}
	if v, at := Release("", "", "", bi); v != "devel" || at.Format(time.RFC3339) != "2026-11-20T10:00:00Z" {
		t.Errorf("stamped: %q %v", v, at)
	}
	if _, at := Release("", "", "", nil); !at.IsZero() {
		t.Errorf("nothing known: %v", at)
	}
}
