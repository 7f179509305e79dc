package flagvalue

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/transcript"
)

// TimeHelp says what a TIME flag takes, for help texts and errors.
const TimeHelp = "a duration ago (36h, 30d, 2w), a date (2026-01-01), a time (2026-01-01T09:30 UTC, or RFC 3339), ms since the epoch, or a record id"

// timeLayouts are the dates and times a TIME flag takes besides RFC 3339;
// without a zone they are UTC, as convo prints times.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02",
	"2006-01-02T15:04",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02 15:04:05.999999999",
}

// Cutoff reads a TIME flag as an instant in ms since the epoch: a
// date or time, ms since the epoch, a record id (the time it was made, which
// its ULID holds), or an age (a Go duration, Nd or Nw) as now minus that.
// Every command that takes a time takes all of these.
func Cutoff(flag, v string, now time.Time) (int64, error) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UnixMilli(), nil
		}
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 && v[0] != '+' {
		return ms, nil
	}
	if transcript.IsID(strings.ToUpper(v)) {
		return int64(ulid.MustParse(strings.ToUpper(v)).Time()), nil
	}
	if len(v) > 1 {
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[v[len(v)-1]]
		// NaN fails n >= 0; an age past what a Duration holds (292
		// years) would wrap around.
		if n, err := strconv.ParseFloat(v[:len(v)-1], 64); err == nil && unit > 0 && n >= 0 && n*float64(unit) < math.MaxInt64 {
			return now.Add(-time.Duration(n * float64(unit))).UnixMilli(), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d).UnixMilli(), nil
	}
	return 0, exitcode.Usagef("%s %q: want %s", flag, v, TimeHelp)
}

// Window reads --since and --until: the cutoffs, in ms since the epoch, of
// what was created at or after from and before before; 0 when the flag is
// not given. An --until of the epoch itself is 1, since 0 means no bound;
// a window no instant falls in is a usage error.
func Window(since, until string, now time.Time) (from, before int64, err error) {
	if since != "" {
		if from, err = Cutoff("--since", since, now); err != nil {
			return 0, 0, err
		}
	}
	if until != "" {
		if before, err = Cutoff("--until", until, now); err != nil {
			return 0, 0, err
		}
	}
	// Compared before the clamp below, which would let --since 0 --until 0
	// through.
	if since != "" && until != "" && from >= before {
		return 0, 0, exitcode.Usagef("--since %s is not before --until %s: no record can be created at or after the one and before the other", since, until)
	}
	if until != "" {
		before = max(before, 1) // 0 would mean no bound
	}
	return from, before, nil
}

// Before reads get's --before: a record id (the records before it in the
// transcript: id, in capitals), or any other TIME (the records created
// before it: ms, at least 1, since 0 means no cutoff and before the
// epoch's first ms nothing was made). "" is neither.
func Before(v string, now time.Time) (id string, ms int64, err error) {
	switch {
	case v == "":
		return "", 0, nil
	case transcript.IsID(strings.ToUpper(v)):
		return strings.ToUpper(v), 0, nil
	}
	if ms, err = Cutoff("--before", v, now); err != nil {
		return "", 0, err
	}
	return "", max(ms, 1), nil
}
