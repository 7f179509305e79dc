package cmd

import (
	"io"
	"log/slog"
	"strings"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// logOptions are the global --log-level and --log-format flags.
type logOptions struct{ level, format string }

// logLevels and logFormats are what the flags take (and complete); "warning"
// is also read as warn.
var (
	logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}
	// logLevelNames orders them for help and completion.
	logLevelNames = []string{"debug", "info", "warn", "error"}
	logFormats    = []string{"text", "json"}
)

func (o *logOptions) addFlags(pf *pflag.FlagSet) {
	pf.StringVar(&o.level, "log-level", "warn", "log on stderr at this level and above: debug, info, warn or error (env CONVO_LOG_LEVEL)")
	pf.StringVar(&o.format, "log-format", "text", "log line format: text or json (env CONVO_LOG_FORMAT)")
}

// newLogger returns the logger the flags ask for, writing to w. Nothing
// below cmd/ makes its own: each package takes this one as a field or a
// parameter. Log lines carry ids, counts, timings and names; never API
// keys, and never message contents.
func newLogger(w io.Writer, o logOptions) (*slog.Logger, error) {
	name := strings.ToLower(o.level)
	if name == "warning" {
		name = "warn"
	}
	level, ok := logLevels[name]
	if !ok {
		return nil, exitcode.Usagef("--log-level %q: want debug, info, warn or error", o.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(o.format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, exitcode.Usagef("--log-format %q: want text or json", o.format)
}

var discardLogger = slog.New(slog.DiscardHandler)

// logger is the command's logger; before the flags are read, one that
// writes nothing.
func (a *Factory) logger() *slog.Logger {
	if a.log == nil {
		return discardLogger
	}
	return a.log
}

// startLogging builds the logger once the flags, the environment and the
// config file are read, and says what is about to run.
func startLogging(a *Factory, cmd *cobra.Command) error {
	l, err := newLogger(a.IO.ErrOut, a.logOpts)
	if err != nil {
		return err
	}
	a.log = l
	if l.Enabled(cmd.Context(), slog.LevelDebug) {
		// Flag names only: a value may be a URL with credentials in it.
		var set []string
		cmd.Flags().Visit(func(f *pflag.Flag) { set = append(set, f.Name) })
		cfg := ""
		if a.cfg != nil {
			cfg = a.cfg.ConfigFileUsed()
		}
		l.Debug("run", "command", cmd.CommandPath(), "flags_set", set, "config_file", cfg, "version", Version())
	}
	return nil
}
