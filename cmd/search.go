package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
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
			if d := o.query.Dropped; len(d) > 0 {
				// The query may not be what the user meant: -q or not.
				f.alertf("search: %s dropped from the query: no word in it (a word is letters, digits and marks)", quotedList(d))
			}
			if o.role != "" && !transcript.Role(o.role).Valid() {
				return exitcode.Usagef("--role %q: want one of %v", o.role, transcript.Roles)
			}
			if o.sort != "newest" && o.sort != "rank" {
				return exitcode.Usagef("--sort %q: want newest or rank", o.sort)
			}
			if cmd.Flags().Changed("conversation") {
				if err := requireConversation(o.conversation); err != nil {
					return err
				}
			}
			if o.since != "" {
				if o.from, err = parseCutoff("--since", o.since, f.Now()); err != nil {
					return err
				}
			}
			if o.until != "" {
				if o.before, err = parseCutoff("--until", o.until, f.Now()); err != nil {
					return err
				}
				o.before = max(o.before, 1) // 0 would mean no bound
			}
			if o.since != "" && o.until != "" && o.from >= o.before {
				return exitcode.Usagef("--since %s is not before --until %s: no record can be created at or after the one and before the other", o.since, o.until)
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
	fl.StringVar(&o.since, "since", "", "only records created at or after TIME: "+TimeHelp)
	fl.StringVar(&o.until, "until", "", "only records created before TIME: "+TimeHelp)
	fl.IntVar(&o.limit, "limit", DefaultSearchLimit, "print at most N records (0: every match)")
	fl.StringVar(&o.sort, "sort", "newest", "newest (by creation time) or rank (how well each answers the query, among the newest 10,000 matches)")
	fl.BoolVar(&o.json, "json", false, `print one {"record": ..., "match": {"snippet": ...}} per line (docs/json-output.md)`)
	_ = cmd.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions([]string{"newest", "rank"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("role", cobra.FixedCompletions([]string{"system", "user", "assistant", "tool", "summary"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// searchHit is one record to print, held past the store's callback.
type searchHit struct {
	conv    string
	role    string
	created int64
	body    []byte
	doc     *search.Doc
	score   float64
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
	var ranked *search.Ranked[searchHit]
	if o.sort == "rank" {
		ranked = search.NewRanked(o.query, func(h searchHit) *search.Doc { return h.doc })
		opt.Limit = search.RankLimit + 1 // one more says there were more
	}
	out := bufio.NewWriter(o.f.IO.Out)
	p := searchPrinter{o: o, w: out, colour: useColour(o.f.IO)}
	err = s.Search(ctx, opt, func(h store.SearchHit) error {
		hit := searchHit{conv: h.Conversation, role: h.Role, created: h.Created, body: h.Body, doc: h.Doc}
		if ranked == nil {
			return p.print(hit)
		}
		hit.body = slices.Clone(h.Body)
		ranked.Add(hit)
		return nil
	})
	if err == nil && ranked != nil {
		if ranked.Over() {
			o.f.warnf("search: more than %d records match; ranked the newest %d (narrow with --since, --until, -c or --role)", search.RankLimit, search.RankLimit)
		}
		err = ranked.Each(o.limit, func(h searchHit, score float64) error {
			h.score = score
			return p.print(h)
		})
	}
	if err != nil {
		return errors.Join(err, out.Flush())
	}
	return out.Flush()
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

// searchPrinter writes hits as JSONL or for people.
type searchPrinter struct {
	o      *searchOptions
	w      *bufio.Writer
	colour bool
}

// searchLine is one line of search --json (schemas/search.schema.json).
type searchLine struct {
	Record json.RawMessage `json:"record"`
	Match  searchMatch     `json:"match"`
}

type searchMatch struct {
	Snippet string   `json:"snippet"`
	Marks   [][2]int `json:"marks"`
	Score   *float64 `json:"score,omitempty"`
}

func (p searchPrinter) print(h searchHit) error {
	sn := p.o.query.Snippet(h.doc)
	if p.o.json {
		line := searchLine{Record: h.body, Match: searchMatch{Snippet: sn.Text, Marks: sn.Marks}}
		if line.Match.Marks == nil {
			line.Match.Marks = [][2]int{}
		}
		if p.o.sort == "rank" {
			line.Match.Score = &h.score
		}
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		p.w.Write(b)
		return p.w.WriteByte('\n')
	}
	var r transcript.Record
	if err := transcript.DecodeStored(h.body, &r); err != nil {
		return fmt.Errorf("record of %q: %w", h.conv, err)
	}
	role := h.role
	if r.Message.Role == transcript.RoleSummary {
		// A summary says what it stands for.
		role = fmt.Sprintf("summary of %d records", len(r.Metadata.SummaryIDs))
	}
	when := time.UnixMilli(h.created).Local().Format("2006-01-02 15:04")
	head := fmt.Sprintf("%s  %s  %s  %s", show.EscapeID(h.conv), when, role, r.ID)
	if p.colour {
		head = show.ANSIDim + head + show.ANSIReset
	}
	fmt.Fprintf(p.w, "%s\n    %s\n", head, p.marked(sn))
	return nil
}

// marked is the snippet escaped for a terminal, its matches in bold
// colour when colour is on.
func (p searchPrinter) marked(sn search.Snippet) string {
	if !p.colour {
		return show.Escape(sn.Text)
	}
	var b strings.Builder
	at := 0
	for _, m := range sn.Marks {
		b.WriteString(show.Escape(sn.Text[at:m[0]]))
		b.WriteString(show.ANSIYellow + show.Escape(sn.Text[m[0]:m[1]]) + show.ANSIReset)
		at = m[1]
	}
	b.WriteString(show.Escape(sn.Text[at:]))
	return b.String()
}

// quotedList is each of s Go-quoted, joined by ", ".
func quotedList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
