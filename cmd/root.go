// Package cmd wires convo's commands: flags, config, streams and exit codes.
// It is the only package that knows about os, cobra and viper.
package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/convo-cli/convo/internal/config"
	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/secrets"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/internal/storeloc"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Main runs convo with the process's arguments and streams and returns the
// exit status.
func Main() int {
	ctx, stop := signals.OnInterrupt(os.Stderr)
	defer stop()
	signals.HandleSIGPIPE()
	// CONVO_CPUPROFILE=FILE writes a CPU profile of the run, for make bench work.
	if path := os.Getenv("CONVO_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	return Run(ctx, os.Args[1:], iostreams.System())
}

// Run runs convo with args on the given streams.
func Run(ctx context.Context, args []string, io *iostreams.IOStreams) int {
	io = io.TypedOut()
	ctx, _ = signals.WithRunState(ctx) // onInterrupt's, or one of its own
	app := &Factory{IO: io, Now: time.Now, IDs: transcript.NewIDs(), secrets: secrets.New()}
	io.ErrOut = app.secrets.Writer(io.ErrOut)
	root := newRootCmd(app)
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		// Only the shell's completion request reads them: walking every
		// command's flags to register them is a millisecond of each start.
		completeFlagValues(app, root)
	}
	typeUsageErrors(root)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	failed, err := root.ExecuteContextC(ctx)
	if app.store != nil {
		err = notFoundIn(err, app.store)
	}
	if cerr := app.close(); err == nil && cerr != nil {
		err = cerr
	}
	err = signals.Interrupted(ctx, err)
	if err != nil {
		err = config.NameSource(err, app.sources)
		code := exitcode.Of(err)
		if !exitcode.Quiet(err) {
			fmt.Fprintf(io.ErrOut, "convo: %s\n", exitcode.Message(err))
		}
		if code == exitcode.Usage {
			// Point at the help of the command that was run, which
			// holds its flags and examples.
			path := root.CommandPath()
			if failed != nil {
				path = failed.CommandPath()
			}
			fmt.Fprintf(io.ErrOut, "Run '%s --help' for usage.\n", path)
		}
		return code
	}
	return exitcode.OK
}

func newRootCmd(a *Factory) *cobra.Command {
	var configPath string
	root := &cobra.Command{
		Use:   "convo",
		Short: "Keep, shrink, replay and log LLM conversation transcripts",
		Long: `convo keeps LLM conversations in a store (a SQLite file, or a PostgreSQL
database many runners share) and streams them as JSONL.

Without -c, a command is a pure transform: it reads a transcript as JSONL on
stdin and writes to stdout, touching no file.

What each exit status means: convo help exit-codes. The environment
variables convo reads: convo help environment.`,
		Example: `  convo append -c demo "Hi, there"
  convo get -c demo | convo render --provider openai
  convo COMMAND --help        # every command's flags, with examples`,
		Version:           Version(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
		// With Args set, cobra leaves unknown commands to it; RunE makes the
		// root runnable so that Args is checked at all.
		Args:                       unknownCommand,
		SuggestionsMinimumDistance: 2,
		RunE:                       func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := loadConfig(a, cmd, configPath); err != nil {
				return err
			}
			if err := checkUTF8(cmd, args); err != nil {
				return err
			}
			if err := checkEmptyConversation(cmd); err != nil {
				return err
			}
			if err := checkEmptyDB(cmd); err != nil {
				return err
			}
			a.notePasswords(a.db)
			a.secrets.NoteKeys(a.getenv)
			return startLogging(a, cmd)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.db, "db", a.db, "store: a SQLite file (path or file:PATH) or postgres://... (env CONVO_DB; default $XDG_DATA_HOME/convo/convo.db)")
	pf.StringVar(&configPath, "config", "", "config file (default $XDG_CONFIG_HOME/convo/config.yaml)")
	pf.BoolVarP(&a.quiet, "quiet", "q", false, "print no notes on stderr and no records on stdout after a write")
	pf.Var(maxConnsFlag(a), "db-max-conns", "most connections to a PostgreSQL store, whatever -j (at least 2; runners × this must stay under the server's max_connections)")
	a.logOpts.addFlags(pf)
	root.SetFlagErrorFunc(flagError)

	root.AddCommand(
		newCmdAppend(a, nil),
		newCmdShow(a, nil),
		newCmdList(a, nil),
		newCmdGet(a, nil),
		newCmdClear(a, nil),
		newCmdSummarize(a, summarizeStoreRun),
		newCmdRender(a, nil),
		newCmdExport(a, nil),
		newCmdAsk(a, nil),
		newCmdSchema(a),
		newCmdAnnotate(a, nil),
		newCmdFork(a, nil),
		newCmdRewind(a, nil),
		newCmdPrune(a, nil),
		newCmdCopy(a, nil),
		newCmdImport(a, nil),
		newCmdSearch(a, nil),
		newCmdMigrate(a, nil),
		newCmdIndex(a, nil),
	)
	root.AddCommand(newHelpTopics()...)
	root.SetHelpCommand(helpCommand(root))
	completionCmd(root)
	helpTemplates(root)
	return root
}

// loadConfig fills every flag the command line left unset from the
// environment (CONVO_<FLAG>) or the config file, in that order.
func loadConfig(a *Factory, cmd *cobra.Command, path string) error {
	v := viper.New()
	v.SetEnvPrefix("convo")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	path, explicit := config.File(path, os.Getenv)
	if _, err := os.Stat(path); err == nil {
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return exitcode.Usagef("config file %s: %v", path, err)
		}
	} else if explicit {
		return exitcode.Usagef("config file %s: %v", path, err)
	}
	a.cfg = v
	var ferr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if ferr != nil || f.Changed || f.Name == "config" || f.Name == "help" || f.Name == "version" || !v.IsSet(f.Name) {
			return
		}
		source := config.Source(f.Name, v.ConfigFileUsed(), os.Getenv)
		if config.CommandLineOnly(f.Name) {
			if !a.quiet {
				fmt.Fprintf(a.IO.ErrOut, "convo: --%s is read from the command line only; %s ignored\n", f.Name, source)
			}
			return
		}
		if a.sources == nil {
			a.sources = map[string]string{}
		}
		a.sources[f.Name] = source
		vals := []string{v.GetString(f.Name)}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = v.GetStringSlice(f.Name)
			if err := sv.Replace(nil); err != nil {
				ferr = exitcode.Usagef("--%s from %s: %v", f.Name, source, err)
				return
			}
		}
		for _, val := range vals {
			if f.Name == "db" && val == "" {
				ferr = exitcode.Usagef("--db from %s is empty: give a store (%s), or none for the default", source, storeloc.Schemes)
				return
			}
			if err := f.Value.Set(val); err != nil {
				ferr = exitcode.Usagef("--%s %q from %s: %v", f.Name, val, source, err)
				return
			}
		}
	})
	if ferr == nil && !a.quiet {
		warnUnknownKeys(cmd, v, a.IO.ErrOut)
	}
	return ferr
}

// warnUnknownKeys says on stderr which keys of the config file no command
// knows: a misspelt key would otherwise be ignored without a word. Keys are
// the long names of flags, of any command (one file serves them all), and
// the providers' settings (OPENAI_API_KEY, OLLAMA_HOST, ...).
func warnUnknownKeys(cmd *cobra.Command, v *viper.Viper, w io.Writer) {
	if v.ConfigFileUsed() == "" {
		return
	}
	known := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cmd.Root())
	for _, p := range format.Providers(0) {
		for _, env := range []string{p.KeyEnv, p.BaseURLEnv} {
			if env != "" {
				known[strings.ToLower(env)] = true
			}
		}
	}
	for _, top := range config.UnknownKeys(v.AllKeys(), known) {
		fmt.Fprintf(w, "convo: config file %s: unknown key %q ignored\n", v.ConfigFileUsed(), top)
	}
}

// conversationFlag adds -c/--conversation with completion from the store.
func conversationFlag(a *Factory, cmd *cobra.Command, target *string, usage string) {
	cmd.Flags().StringVarP(target, "conversation", "c", "", usage)
	_ = cmd.RegisterFlagCompletionFunc("conversation", func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		dbFromEnv(a)
		s, err := a.ReadStore(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ids, err := s.ConversationIDs(cmd.Context(), prefix, 200)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
}

// dbFromEnv honours CONVO_DB in completion, which runs without
// PersistentPreRun and so without the config's precedence rules.
func dbFromEnv(a *Factory) {
	if a.db == "" {
		a.db = os.Getenv("CONVO_DB")
	}
}

// checkEmptyConversation refuses a -c given empty, as an unset shell
// variable gives it (-c "$CONV"): without the check, a command that also
// works without -c would quietly become a pure transform and store nothing.
func checkEmptyConversation(cmd *cobra.Command) error {
	if f := cmd.Flags().Lookup("conversation"); f != nil && f.Changed && f.Value.String() == "" {
		return exitcode.Usagef("-c/--conversation is empty: give a conversation id (an unset shell variable?)")
	}
	return nil
}

// checkEmptyDB refuses --db given empty, as an unset shell variable gives
// it (--db "$STORE"): without the check, the command would quietly use,
// and maybe write to, the default store.
func checkEmptyDB(cmd *cobra.Command) error {
	if f := cmd.Flags().Lookup("db"); f != nil && f.Changed && f.Value.String() == "" {
		return exitcode.Usagef("--db is empty: give a store (%s), or leave --db out for the default (an unset shell variable?)", storeloc.Schemes)
	}
	return nil
}
