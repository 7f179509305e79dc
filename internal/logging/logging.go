// Package logging makes the one logger a convo command writes its log
// lines with, as --log-level and --log-format ask. Nothing below cmd/
// makes its own: each package takes this one as a field or a parameter.
// Log lines carry ids, counts, timings and names; never API keys, and
// never message contents.
package logging

import (
	"io"
	"log/slog"
	"strings"

	"github.com/convo-cli/convo/internal/exitcode"
)

// levels are what --log-level takes; "warning" is also read as warn.
var levels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

var (
	// Levels are --log-level's values, in order, for help and completion.
	Levels = []string{"debug", "info", "warn", "error"}
	// Formats are --log-format's values.
	Formats = []string{"text", "json"}
)

// New returns the logger level and format ask for, writing to w; a value
// neither takes is a usage error naming its flag.
func New(w io.Writer, level, format string) (*slog.Logger, error) {
	name := strings.ToLower(level)
	if name == "warning" {
		name = "warn"
	}
	l, ok := levels[name]
	if !ok {
		return nil, exitcode.Usagef("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch strings.ToLower(format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, exitcode.Usagef("--log-format %q: want text or json", format)
}

// Discard writes nothing: the logger before the flags are read.
var Discard = slog.New(slog.DiscardHandler)
