package cmd

import (
	"fmt"
	"strings"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/helptopics"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// This file shapes what --help, man pages and usage errors show.

func init() {
	cobra.AddTemplateFunc("plainFlagUsages", plainFlagUsages)
}

// helpTemplates makes every command's usage list boolean flags as plain
// flags (--json), not as pflag writes them (--json[=true|false]), which
// reads as if a value were wanted.
func helpTemplates(root *cobra.Command) {
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages", "plainFlagUsages .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages", "plainFlagUsages .InheritedFlags")
	// Help topics are read with `convo help TOPIC`: say so, not
	// `convo TOPIC`.
	t = strings.ReplaceAll(t, `Additional help topics:{{range .Commands}}{{if .IsAdditionalHelpTopicCommand}}
  {{rpad .CommandPath .CommandPathPadding}} {{.Short}}`, `Help topics:{{range .Commands}}{{if .IsAdditionalHelpTopicCommand}}
  {{rpad (printf "%s help %s" .Parent.CommandPath .Name) 22}} {{.Short}}`)
	root.SetUsageTemplate(t)
}

// plainFlagUsages is fs.FlagUsages with each boolean flag shown bare.
func plainFlagUsages(fs *pflag.FlagSet) string {
	c := pflag.NewFlagSet("", pflag.ContinueOnError)
	c.SortFlags = fs.SortFlags
	fs.VisitAll(func(f *pflag.Flag) {
		g := *f
		if f.Value.Type() == "bool" {
			g.Value = plainBool{f.Value}
		}
		c.AddFlag(&g)
	})
	return c.FlagUsages()
}

// plainBool hides IsBoolFlag from the usage writer; its type stays "bool",
// for which pflag prints no value name.
type plainBool struct{ v pflag.Value }

func (b plainBool) String() string     { return b.v.String() }
func (b plainBool) Set(s string) error { return b.v.Set(s) }
func (b plainBool) Type() string       { return b.v.Type() }

// completionCmd gives cobra's completion command and its shells examples
// and says what they install where.
func completionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Example = `  convo completion bash > ~/.local/share/bash-completion/completions/convo
  convo completion zsh > "${fpath[1]}/_convo"
  convo completion fish > ~/.config/fish/completions/convo.fish
  make install        # installs all three under PREFIX/share`
		for _, shell := range c.Commands() {
			shell.Example = fmt.Sprintf("  source <(convo completion %[1]s)    # this shell only\n  convo completion %[1]s --help       # where to install it for good", shell.Name())
		}
	}
}

// helpCommand is `convo help [COMMAND|TOPIC]`, cobra's own but for a name
// it does not know: a usage error (exit 2) listing the topics and the
// commands, where cobra prints the root's help and exits 0.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command|topic]",
		Short: "Help about any command or topic",
		Long:  "Help provides help for any command or topic: convo help COMMAND, convo help TOPIC.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, sub := range root.Commands() {
				if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
					if strings.HasPrefix(sub.Name(), toComplete) {
						names = append(names, sub.Name())
					}
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if len(args) > 0 && (err != nil || target == nil || len(rest) > 0 || target == root) {
				var topics, cmds []string
				for _, sub := range root.Commands() {
					switch {
					case sub.IsAdditionalHelpTopicCommand():
						topics = append(topics, sub.Name())
					case sub.IsAvailableCommand():
						cmds = append(cmds, sub.Name())
					}
				}
				return exitcode.Usagef("unknown help topic %q: the topics are %s; the commands are %s",
					strings.Join(args, " "), strings.Join(topics, ", "), strings.Join(cmds, ", "))
			}
			if target == nil {
				target = root
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		},
	}
}

// newHelpTopics builds the topics as cobra help topics: commands without a
// Run, listed by the root's help under "Additional help topics" and shown
// by `convo help NAME`.
func newHelpTopics() []*cobra.Command {
	var cmds []*cobra.Command
	for _, t := range helptopics.All() {
		c := &cobra.Command{Use: t.Name, Short: t.Short}
		// The text is wrapped when it is shown, not at every start: the
		// topics' wrapping was a millisecond of each command's.
		c.SetHelpFunc(func(c *cobra.Command, args []string) {
			if c.Long == "" {
				c.Long = t.Text(78)
			}
			c.Parent().HelpFunc()(c, args)
		})
		cmds = append(cmds, c)
	}
	return cmds
}
