package cmd

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/transcript"
)

// This file holds the flag readers several commands share.

func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unexpected argument %q", args[0])
	}
	return nil
}

// recordRef reads a --id/--at/--to value (see transcript.ParseRef).
func recordRef(flag, v string) (transcript.Ref, error) {
	if v == "" {
		return "", usageErrorf("missing %s: want %s", flag, transcript.RefHelp)
	}
	ref, err := transcript.ParseRef(v)
	if err != nil {
		return "", usageErrorf("%s %v", flag, err)
	}
	return ref, nil
}

// annotationFlags reads --timing, --aux and --unset-aux (see
// transcript.ParseAnnotation): a malformed flag is a usage error, an
// unknown timing key invalid input, as it is in a record.
func annotationFlags(timing, aux, unsetAux []string, now int64) (*transcript.Annotation, error) {
	an, err := transcript.ParseAnnotation(timing, aux, unsetAux, now)
	var ie *transcript.InputError
	if err != nil && !errors.As(err, &ie) {
		return nil, &usageError{err}
	}
	return an, err
}

// parseCutoff reads an age (a Go duration, Nd or Nw) as now minus that, or
// an RFC 3339 time or ms since the epoch as the instant itself, in ms.
func parseCutoff(flag, v string, now time.Time) (int64, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UnixMilli(), nil
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
	return 0, usageErrorf("%s %q: want a duration (36h, 30d, 2w) or an RFC 3339 time", flag, v)
}
