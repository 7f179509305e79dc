package cmd

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/convo-cli/convo/internal/logging"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/importer"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// flagValues completes the flags whose values come from one of convo's
// registries, by flag name, on every command that has the flag: a new
// command gets them without a word. Flags a command completes itself
// (render --provider, ask --provider, --summarizer, -c) keep theirs.
func flagValues(a *Factory) map[string]cobra.CompletionFunc {
	fixed := func(values []string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	var roles, formats, refs []string
	for _, r := range transcript.Roles {
		roles = append(roles, string(r))
	}
	for _, f := range export.Formats {
		formats = append(formats, string(f))
	}
	for _, r := range []transcript.Ref{transcript.RefLast, transcript.RefLastUser, transcript.RefLastAssistant} {
		refs = append(refs, string(r))
	}
	records := recordRefs(a, refs)
	return map[string]cobra.CompletionFunc{
		"tokenizer":  fixed(tokens.Names),
		"log-level":  fixed(logging.Levels),
		"log-format": fixed(logging.Formats),
		"format":     fixed(formats), // append --format completes its own two
		"role":       fixed(roles),
		"from":       fixed(format.Names(format.CanParse)),
		"provider":   fixed(format.Names(format.CanCall)),
		"id":         records, // annotate --id
		"at":         records, // fork --at
	}
}

// completeFlagValues registers flagValues on every command of root, and
// rewind --to (RECORD there; fork's and copy's --to name other things).
func completeFlagValues(a *Factory, root *cobra.Command) {
	values := flagValues(a)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		register := func(f *pflag.Flag) {
			complete, ok := values[f.Name]
			if c.Name() == "rewind" && f.Name == "to" {
				complete, ok = values["id"], true
			}
			if !ok {
				return
			}
			if _, has := c.GetFlagCompletionFunc(f.Name); !has {
				_ = c.RegisterFlagCompletionFunc(f.Name, complete)
			}
		}
		if c.Name() == "import" {
			// Formats, not the providers append --from completes.
			_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions(importer.Names(), cobra.ShellCompDirectiveNoFileComp))
		}
		c.LocalNonPersistentFlags().VisitAll(register)
		c.PersistentFlags().VisitAll(register)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// recordRefs completes a RECORD: the names, then the ids of the newest
// records of the conversation -c names, newest first.
func recordRefs(a *Factory, names []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		out := append([]string(nil), names...)
		conv := ""
		if f := cmd.Flags().Lookup("conversation"); f != nil {
			conv = f.Value.String()
		}
		if conv == "" {
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		dbFromEnv(a)
		s, err := a.ReadStore(cmd.Context())
		if err != nil {
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		out = append(out, show.RecentRecords(cmd.Context(), s, conv, 20)...)
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}
