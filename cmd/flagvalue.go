package cmd

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
)

// parseRate reads --rate N/PERIOD ("10/1s", "60/m", "500/1h"): at most N
// requests per PERIOD, spaced evenly, as the interval between two
// requests (PERIOD/N). "" means no limit: 0.
func parseRate(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	n, per, ok := strings.Cut(v, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count <= 0 {
		return 0, exitcode.Usagef("--rate %q: want N/PERIOD, e.g. 10/1s or 60/m", v)
	}
	switch per {
	case "s", "sec":
		per = "1s"
	case "m", "min":
		per = "1m"
	case "h":
		per = "1h"
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return 0, exitcode.Usagef("--rate %q: bad period %q", v, per)
	}
	interval := d / time.Duration(count)
	if interval == 0 {
		// An interval of 0 would be no limit at all.
		return 0, exitcode.Usagef("--rate %q: more than one request a nanosecond", v)
	}
	return interval, nil
}

// textOrFile reads a TEXT|@FILE flag value.
func textOrFile(flag, v string) (string, error) {
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return "", exitcode.Usagef("%s: %v", flag, err)
		}
		return string(b), nil
	}
	return v, nil
}
