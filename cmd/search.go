package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/memlimit"
	"github.com/convo-cli/convo/pkg/search"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// searchOptions are the flags of `convo search`.
type searchOptions struct {
	f                  *Factory
	query              *search.Query
	conversation, role string
	since, until, sort string
	limit              int
	json               bool
	from, before       int64
}

// DefaultSearchLimit is how many records search prints without --limit.
const DefaultSearchLimit = 20

func newCmdSearch(f *Factory, runF func(context.Context, *searchOptions) error) *cobra.Command {
	o := &searchOptions{f: f}
	cmd := &cobra.Command{
		Use:   "search QUERY... [-c ID] [--role R] [--since TIME] [--until TIME] [--limit N] [--sort newest|rank] [--json]",
		Short: "Find the records that say something, in every conversation, newest first",
		Long: `Find the records whose text (contents, tool calls' names and arguments, tool
results, summaries) matches QUERY: words (all of them), "a phrase", -word to
exclude, a OR b (OR binds tighter than the space), a AND b (the same as a b),
prefix*. OR and AND are operators in capitals only; quote them to find the
words ("AND"). A token that holds no word (punctuation, symbols, emoji) is
dropped, and stderr says so when nothing is left. An identifier is found whole (ORD-55821,
ann@example.com, /usr/local/bin) and by its parts (55821, example.com).
An argument starting with - is a flag: quote the query ('deploy -staging')
or put -- before it. See docs/search.md.`,
		Example: `  convo search ORD-55821
  convo search '"payment failed" -refund' --since 30d
  convo search 'timeout OR deadline' -c agent-42 --role tool
  convo search invoice --sort rank --limit 5
  convo search deploy --json | jq -r .record.conversation | sort -u`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitcode.Usagef("search needs a QUERY")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// Several arguments are one query: convo search ORD-55821
			// shipped finds both words; a phrase keeps its quotes
			// inside the shell's: '"in transit"'.
			var err error
			if o.query, err = search.Parse(strings.Join(args, " ")); err != nil {
				return exitcode.Usagef("%v", err)
			}
			if o.limit < 0 {
				return exitcode.Usagef("--limit %d: want 0 (every match) or more", o.limit)
			}
			if len(o.query.Dropped) > 0 {
				// The query may not be what the user meant: -q or not.
				f.alertf("search: %s dropped from the query: no word in it (a word is letters, digits and marks)", o.query.DroppedList())
			}
			if o.role != "" && !transcript.Role(o.role).Valid() {
				return exitcode.Usagef("--role %q: want one of %v", o.role, transcript.Roles)
			}
			if o.sort != "newest" && o.sort != "rank" {
				return exitcode.Usagef("--sort %q: want newest or rank", o.sort)
			}
			if cmd.Flags().Changed("conversation") {
				if err := flagvalue.Conversation(o.conversation); err != nil {
					return err
				}
			}
			if o.from, o.before, err = flagvalue.Window(o.since, o.until, f.Now()); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return searchRun(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	conversationFlag(f, cmd, &o.conversation, "only this conversation")
	fl.StringVar(&o.role, "role", "", "only records of this role: system, user, assistant, tool or summary")
	fl.StringVar(&o.since, "since", "", "only records created at or after TIME: "+flagvalue.TimeHelp)
	fl.StringVar(&o.until, "until", "", "only records created before TIME: "+flagvalue.TimeHelp)
	fl.IntVar(&o.limit, "limit", DefaultSearchLimit, "print at most N records (0: every match)")
	fl.StringVar(&o.sort, "sort", "newest", "newest (by creation time) or rank (how well each answers the query, among the newest 10,000 matches)")
	fl.BoolVar(&o.json, "json", false, `print one {"record": ..., "match": {"snippet": ...}} per line (docs/json-output.md)`)
	_ = cmd.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions([]string{"newest", "rank"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("role", cobra.FixedCompletions([]string{"system", "user", "assistant", "tool", "summary"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func searchRun(ctx context.Context, o *searchOptions) error {
	s, err := o.store(ctx)
	if s == nil || err != nil {
		return err
	}
	progress, indexed := indexProgress(ctx, o.f)
	opt := store.SearchOptions{Query: o.query, Conversation: o.conversation, Role: o.role,
		Since: o.from, Until: o.before, Limit: o.limit,
		// The first search after writes brings the index up to date.
		Progress: func(done, total int64) {
			if progress != nil {
				progress(done, total)
			}
			if done >= total {
				indexed()
			}
		}}
	p := show.SearchPrinter{Query: o.query, JSON: o.json, Rank: o.sort == "rank", Colour: useColour(o.f.IO)}
	// The index may catch up first: a bulk write.
	defer memlimit.Bulk()()
	return p.Search(ctx, s, opt, o.f.IO.Out, o.limit, func() {
		o.f.warnf("search: more than %d records match; ranked the newest %d (narrow with --since, --until, -c or --role)", search.RankLimit, search.RankLimit)
	})
}

// store opens the store to search, nil when there is none to search
// (said on stderr), and checks that -c names a stored conversation.
func (o *searchOptions) store(ctx context.Context) (store.Store, error) {
	s, err := o.f.ReadStore(ctx)
	switch {
	case errors.Is(err, errNoStore) && o.conversation == "":
		// A store never written to holds nothing to find (exit 0), but a
		// script must tell that from no match: a mistyped --db.
		o.f.alertf("search: no store at %s: nothing to find", o.f.storeSpec())
		return nil, nil
	case errors.Is(err, store.ErrOutdated):
		return nil, fmt.Errorf("%w; search needs the index it adds: run `convo migrate` (or any command that writes)", err)
	case err != nil:
		return nil, err
	}
	if o.conversation != "" {
		if err := s.Read(ctx, o.conversation, store.ReadOptions{Limit: 1}, func(store.Row) error { return nil }); err != nil {
			return nil, err // Main names the store
		}
	}
	return s, nil
}
