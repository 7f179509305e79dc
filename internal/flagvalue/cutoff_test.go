package flagvalue

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestCutoff(t *testing.T) {
	now := time.UnixMilli(10 * 24 * 3600 * 1000)
	day := int64(24 * 3600 * 1000)
	tests := []struct {
		in   string
		want int64
	}{
		{"1d", now.UnixMilli() - day},
		{"1w", now.UnixMilli() - 7*day},
		{"1.5d", now.UnixMilli() - day*3/2},
		{"36h", now.UnixMilli() - day*3/2},
		{"1970-01-02T00:00:00Z", day},
		// Dates and times without a zone are UTC, as convo prints them.
		{"1970-01-02", day},
		{"1970-01-02T01:00", day + 3600*1000},
		{"1970-01-02 01:00:30", day + 3600*1000 + 30*1000},
		{"1970-01-02T01:00:30.5", day + 3600*1000 + 30500},
		{"86400000", day},
		// A record id stands for the time it was made.
		{"01JRZJ166J2WRMF990535EVSQS", 1744815823058},
		{"01jrzj166j2wrmf990535evsqs", 1744815823058},
	}
	for _, tt := range tests {
		got, err := Cutoff("--x", tt.in, now)
		if err != nil || got != tt.want {
			t.Errorf("%s: %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "d", "-1d", "-2h", "soon", "3x", "-5", "+5", "2026-13-01", "2026-01-01T25:00", "01JRZJ166J2WRMF990535EVSQ"} {
		if _, err := Cutoff("--x", bad, now); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "--x") {
			t.Errorf("%q: %v, want a usage error naming the flag", bad, err)
		}
	}
}

// FuzzCutoff: any TIME value is an instant or a usage error naming the
// flag, never a panic; an age is never in the future.
func FuzzCutoff(f *testing.F) {
	for _, s := range []string{"2026-01-01", "2026-01-01T09:30", "2026-01-01 09:30:05", "2026-01-01T09:30:00+02:00",
		"1744815823058", "01JRZJ166J2WRMF990535EVSQS", "36h", "30d", "2w", "1.5d", "NaNd", "-1h", "+5", "1e400d", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		ms, err := Cutoff("--since", v, now)
		if err != nil {
			var ue *exitcode.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--since") {
				t.Fatalf("%q: %v, want a usage error naming the flag", v, err)
			}
			return
		}
		age := strings.HasSuffix(v, "h") || strings.HasSuffix(v, "d") || strings.HasSuffix(v, "w")
		if age && !transcript.IsID(strings.ToUpper(v)) && ms > now.UnixMilli() {
			t.Fatalf("%q: an age %d ms after now", v, ms-now.UnixMilli())
		}
	})
}

func TestWindow(t *testing.T) {
	now := time.UnixMilli(10 * 24 * 3600 * 1000)
	for _, tc := range []struct {
		since, until string
		from, before int64
		usage        string // "" : no error
	}{
		{"", "", 0, 0, ""},
		{"1000", "", 1000, 0, ""},
		{"", "2000", 0, 2000, ""},
		{"", "0", 0, 1, ""}, // the epoch is a bound, not none
		{"1d", "2000000000000", now.UnixMilli() - 24*3600*1000, 2000000000000, ""},
		{"2000", "1000", 0, 0, "--since 2000 is not before --until 1000"},
		{"1000", "1000", 0, 0, "--since 1000 is not before --until 1000"},
		{"0", "0", 0, 0, "--since 0 is not before --until 0"}, // not the clamped 1
		{"soon", "", 0, 0, `--since "soon"`},
		{"", "later", 0, 0, `--until "later"`},
	} {
		from, before, err := Window(tc.since, tc.until, now)
		if tc.usage != "" {
			usage(t, err, tc.usage)
			continue
		}
		if err != nil || from != tc.from || before != tc.before {
			t.Errorf("Window(%q, %q) = %d, %d, %v; want %d, %d", tc.since, tc.until, from, before, err, tc.from, tc.before)
		}
	}
}

func TestBefore(t *testing.T) {
	now := time.UnixMilli(10 * 24 * 3600 * 1000)
	id := "01JRZJ166J2WRMF990535EVSQ4"
	for _, tc := range []struct {
		v     string
		id    string
		ms    int64
		usage string // "" : no error
	}{
		{"", "", 0, ""},
		{id, id, 0, ""},
		{strings.ToLower(id), id, 0, ""}, // ids are read in any case
		{"2000", "", 2000, ""},
		{"0", "", 1, ""}, // the epoch is a cutoff, not none
		{"1d", "", now.UnixMilli() - 24*3600*1000, ""},
		{"soon", "", 0, `--before "soon"`},
	} {
		gotID, ms, err := Before(tc.v, now)
		if tc.usage != "" {
			usage(t, err, tc.usage)
			continue
		}
		if err != nil || gotID != tc.id || ms != tc.ms {
			t.Errorf("Before(%q) = %q, %d, %v; want %q, %d", tc.v, gotID, ms, err, tc.id, tc.ms)
		}
	}
}
