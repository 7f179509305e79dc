package cmd

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/convo-cli/convo/pkg/llm"
)

// logOptions are the global --log-level and --log-format flags.
type logOptions struct{ level, format string }

func (o *logOptions) addFlags(pf *pflag.FlagSet) {
	pf.StringVar(&o.level, "log-level", "warn", "log on stderr at this level and above: debug, info, warn or error (env CONVO_LOG_LEVEL)")
	pf.StringVar(&o.format, "log-format", "text", "log line format: text or json (env CONVO_LOG_FORMAT)")
}

// newLogger returns the logger the flags ask for, writing to w. Nothing
// below cmd/ makes its own: each package takes this one as a field or a
// parameter. Log lines carry ids, counts, timings and names; never API
// keys, and never message contents.
func newLogger(w io.Writer, o logOptions) (*slog.Logger, error) {
	var level slog.Level
	switch strings.ToLower(o.level) {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return nil, usageErrorf("--log-level %q: want debug, info, warn or error", o.level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(o.format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageErrorf("--log-format %q: want text or json", o.format)
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
func (a *Factory) startLogging(cmd *cobra.Command) error {
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
		l.Debug("run", "command", cmd.CommandPath(), "flags_set", set, "config_file", cfg, "version", buildVersion())
	}
	return nil
}

// loggedClient logs every provider call: provider, model, latency, tokens
// and attempts, never the request or the answer.
type loggedClient struct {
	llm.Client
	log *slog.Logger
}

func (c loggedClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	c.log.Debug("provider call", "provider", c.Name(), "model", req.Model, "messages", len(req.Messages), "max_tokens", req.MaxTokens)
	resp, err := c.Client.Complete(ctx, req)
	attrs := []any{"provider", c.Name(), "model", cmpOr(resp.Model, req.Model), "latency_ms", time.Since(start).Milliseconds(),
		"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens}
	if err != nil {
		var e *llm.Error
		if errors.As(err, &e) {
			attrs = append(attrs, "attempts", e.Attempts, "status", e.Status)
		}
		// The llm package redacts the key from every error it returns.
		c.log.Info("provider call failed", append(attrs, "error", err.Error())...)
		return resp, err
	}
	c.log.Info("provider answered", append(attrs, "finish_reason", resp.FinishReason)...)
	return resp, err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
