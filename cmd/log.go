package cmd

import (
	"context"
	"log"
	"log/slog"
	"strings"

	"github.com/convo-cli/convo/internal/logging"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// logOptions are the global --log-level and --log-format flags.
type logOptions struct{ level, format string }

func (o *logOptions) addFlags(pf *pflag.FlagSet) {
	pf.StringVar(&o.level, "log-level", "warn", "log on stderr at this level and above: debug, info, warn or error (env CONVO_LOG_LEVEL)")
	pf.StringVar(&o.format, "log-format", "text", "log line format: text or json (env CONVO_LOG_FORMAT)")
}

// logger is the command's logger; before the flags are read, one that
// writes nothing.
func (a *Factory) logger() *slog.Logger {
	if a.log == nil {
		return logging.Discard
	}
	return a.log
}

// startLogging builds the logger once the flags, the environment and the
// config file are read, and says what is about to run.
func startLogging(a *Factory, cmd *cobra.Command) error {
	l, err := logging.New(a.IO.ErrOut, a.logOpts.level, a.logOpts.format)
	if err != nil {
		return err
	}
	a.log = l
	// A library's own log lines (the Gemini SDK prints "Error stream idle"
	// when a stream stalls) went to stderr as they were, without "convo:"
	// or the key redaction: they are debug lines of convo's logger now.
	log.SetFlags(0)
	log.SetOutput(libraryLog{l})
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

// libraryLog takes the lines a library writes with the standard library's
// log package as debug lines of l; the failure they tell of, if any,
// reaches convo as an error and is reported as such.
type libraryLog struct{ l *slog.Logger }

func (w libraryLog) Write(p []byte) (int, error) {
	w.l.Log(context.Background(), slog.LevelDebug, "library log", "line", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
