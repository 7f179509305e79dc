package cmd

import (
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// parseRate reads --rate N/PERIOD ("10/1s", "60/m", "500/1h"): at most N
// requests per PERIOD, spaced evenly. "" means no limit.
func parseRate(v string) (*rate.Limiter, error) {
	if v == "" {
		return nil, nil
	}
	n, per, ok := strings.Cut(v, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count <= 0 {
		return nil, usageErrorf("--rate %q: want N/PERIOD, e.g. 10/1s or 60/m", v)
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
		return nil, usageErrorf("--rate %q: bad period %q", v, per)
	}
	if d/time.Duration(count) == 0 {
		// rate.Every(0) is no limit at all.
		return nil, usageErrorf("--rate %q: more than one request a nanosecond", v)
	}
	return rate.NewLimiter(rate.Every(d/time.Duration(count)), 1), nil
}

// textOrFile reads a TEXT|@FILE flag value.
func textOrFile(flag, v string) (string, error) {
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return "", usageErrorf("%s: %v", flag, err)
		}
		return string(b), nil
	}
	return v, nil
}
