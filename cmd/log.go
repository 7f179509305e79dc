package cmd

import (
	"log/slog"

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
