package cmd

import (
	"unicode/utf8"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/transcript"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// fileFlags hold only file names, which on Unix are any bytes: their values
// never reach a record or an output, so they are exempt from the UTF-8
// check. Every other flag's value may end up in the store (-c, --aux,
// --sink...) or in JSON output, where invalid UTF-8 breaks every reader.
var fileFlags = map[string]bool{
	"db": true, "config": true, "keep-raw": true, "schema": true,
	"set-schema": true, "template": true, "tools": true,
}

// fileArgs are the commands whose arguments are file names.
var fileArgs = map[string]bool{"convo schema set": true}

// checkUTF8 rejects a flag value (given on the command line, or taken from
// CONVO_<FLAG> or the config file) or an argument that is not valid UTF-8,
// as a usage error naming it. It runs once, before any command.
func checkUTF8(cmd *cobra.Command, args []string) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || fileFlags[f.Name] {
			return
		}
		vals := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			if utf8.ValidString(v) {
				continue
			}
			from := ""
			if !f.Changed {
				from = " (from the environment or the config file)"
			}
			err = exitcode.Usagef("--%s%s: invalid UTF-8 at byte %d", f.Name, from, transcript.InvalidUTF8At([]byte(v))+1)
			return
		}
	})
	if err != nil || fileArgs[cmd.CommandPath()] {
		return err
	}
	for i, a := range args {
		if !utf8.ValidString(a) {
			return exitcode.Usagef("argument %d: invalid UTF-8 at byte %d", i+1, transcript.InvalidUTF8At([]byte(a))+1)
		}
	}
	return nil
}
