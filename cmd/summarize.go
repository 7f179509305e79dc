package cmd

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

// summarizeOptions are the flags of `convo summarize`.
type summarizeOptions struct {
	f                               *Factory
	conversation                    string
	all, dryRun, deleteOriginals    bool
	json                            bool // --all: JSONL even at a terminal
	keepLast, ifOver, every         int
	maxTokens, ledgerSize, jobs     int
	ratio                           float64
	templatePath, prompt, tokenizer string
	rate                            string
	batchOut, batchIn               string                      // --batch-out, --batch-in FILE ("-": stdout, stdin)
	wait                            func(context.Context) error // --rate, parsed
	pace                            time.Duration               // --rate's interval between requests
	provider                        providerOptions
}

// newCmdSummarize builds `convo summarize`. runF replaces summarizeRun in
// tests that check flag parsing alone.
func newCmdSummarize(f *Factory, runF func(context.Context, *summarizeOptions) error) *cobra.Command {
	o := &summarizeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "summarize -c ID | --all",
		Short: "Fold old turns into one summary record so each LLM call sends fewer tokens",
		Long: `Fold the old part of a conversation into one summary record, placed right after
the last record it covers. The previous summary is part of what the new one covers,
so one summary always stands for everything before it. Never covered: system and
fake records, an unanswered last user record, the last --keep-last turns, and an
assistant tool call without its results.

Summarizers: extractive (default: offline, deterministic), exec (--exec 'CMD':
the text on its stdin, the summary from its stdout), or any provider ask can
call: ` + format.NameList(format.CanCall) + ` (openai: any OpenAI-compatible
endpoint with --base-url). A provider gets the same request from summarize
as from ask: endpoint, headers, default model and output limit.

With --all, stdout gets the summary records as JSONL when it is no terminal
(or with --json); at a terminal, one line per conversation summarized, above
the progress bar (on stderr), and the tally.

Without -c or --all, summarize is a pure transform: a transcript on stdin, the
transcript with the summary placed on stdout.`,
		Example: `  convo summarize -c demo --keep-last 2
  convo summarize --all --if-over 4000 -j 8 --rate 60/m --summarizer openai --model gpt-4o-mini
  convo get -c demo | convo summarize --dry-run
  convo summarize --all --json | jq -r .conversation   # JSONL, as whenever stdout is no terminal`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return summarizeRun(cmd.Context(), o)
		},
	}
	f.conversationFlag(cmd, &o.conversation, "conversation to summarize")
	fl := cmd.Flags()
	fl.BoolVar(&o.all, "all", false, "every stored conversation whose trigger fires")
	fl.IntVar(&o.ifOver, "if-over", 0, "only when the LLM view holds more than this many tokens")
	fl.IntVar(&o.every, "every", 0, "only when this many records stand after the latest summary")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print the text the summarizer would receive; write nothing")
	fl.StringVar(&o.templatePath, "template", "", "Go text/template FILE shaping that text (fields: .Previous, .PreviousRecord, .Records)")
	fl.IntVarP(&o.jobs, "jobs", "j", 4, "with --all: conversations summarized at once")
	fl.BoolVar(&o.json, "json", false, "with --all at a terminal: print the summary records as JSONL, as when stdout is no terminal, instead of a line per conversation")
	fl.StringVar(&o.rate, "rate", "", "at most N summarizer requests per PERIOD, e.g. 60/m (delayed, never failed)")
	fl.StringVar(&o.batchOut, "batch-out", "", "with --all and --summarizer "+strings.Join(summarize.BatchProviders(), "|")+": write the requests to FILE for the provider's batch API (half price, answered within 24h), storing nothing (see docs/batch.md)")
	fl.StringVar(&o.batchIn, "batch-in", "", "store the summaries of the batch result FILE of a --batch-out run, given the same summarize options; conversations changed since are skipped and named")
	o.addPolicyFlags(cmd, "")
	return cmd
}

// addPolicyFlags adds the flags that shape a summary, which summarize and
// append (for --summarize-if-over and --summarize-every) share; append
// notes its use in each flag's help.
func (o *summarizeOptions) addPolicyFlags(cmd *cobra.Command, note string) {
	fl := cmd.Flags()
	fl.IntVar(&o.keepLast, "keep-last", 4, note+"turns kept verbatim")
	fl.StringVar(&o.prompt, "prompt", "", note+"instruction given to the summarizer: TEXT or @FILE")
	fl.StringVar(&o.tokenizer, "tokenizer", tokens.Default, note+"token encoding: o200k_base or cl100k_base")
	fl.IntVar(&o.maxTokens, "max-summary-tokens", summarize.DefaultMaxSummaryTokens, note+"ceiling on the summary's length")
	fl.Float64Var(&o.ratio, "summary-ratio", summarize.DefaultSummaryRatio, note+"bound the summary by this share of the tokens it stands for (0 to 1), up to --max-summary-tokens, so it grows with the conversation; 0: always --max-summary-tokens")
	fl.IntVar(&o.ledgerSize, "ledger-size", summarize.DefaultLedgerSize, note+"bound on the facts carried verbatim from summary to summary")
	fl.BoolVar(&o.deleteOriginals, "delete-originals", false, note+"delete the covered records, in the transaction that stores the summary")
	o.provider.addFlags(cmd, "summarizer", "extractive")
}

// check refuses flag values that cannot work, before anything is opened.
func (o *summarizeOptions) check() error {
	if err := o.checkBatch(); err != nil {
		return err
	}
	if o.all && o.conversation != "" {
		return usageErrorf("give -c or --all, not both")
	}
	if !o.all && o.conversation == "" && o.batchIn == "" && o.f.IO.StdinIsTerminal() {
		return usageErrorf("give -c ID or --all, or pipe a transcript on stdin")
	}
	if err := checkConversationID(o.conversation); err != nil {
		return err
	}
	if o.jobs < 1 {
		return usageErrorf("-j/--jobs %d: want 1 or more", o.jobs)
	}
	if o.ifOver < 0 || o.every < 0 {
		return usageErrorf("--if-over and --every must be 0 (off) or more")
	}
	if err := o.checkPolicy(); err != nil {
		return err
	}
	limiter, err := parseRate(o.rate)
	if limiter != nil {
		o.wait = limiter.Wait
		o.pace = time.Duration(float64(time.Second) / float64(limiter.Limit()))
	}
	return err
}

// checkBatch refuses --batch-out and --batch-in where they cannot work.
func (o *summarizeOptions) checkBatch() error {
	switch {
	case o.batchOut != "" && o.batchIn != "":
		return usageErrorf("give --batch-out or --batch-in, not both")
	case o.batchOut != "" && !o.all:
		return usageErrorf("--batch-out needs --all")
	case o.batchOut != "" && !slices.Contains(summarize.BatchProviders(), o.provider.name):
		return usageErrorf("--batch-out needs --summarizer %s", strings.Join(summarize.BatchProviders(), ", "))
	case o.batchIn != "" && (o.all || o.conversation != ""):
		return usageErrorf("--batch-in takes no -c or --all: the results name their conversations")
	case (o.batchOut != "" || o.batchIn != "") && (o.dryRun || o.rate != ""):
		return usageErrorf("--batch-out and --batch-in take no --dry-run or --rate")
	}
	return nil
}

// checkPolicy refuses values of the policy flags that cannot work.
func (o *summarizeOptions) checkPolicy() error {
	switch {
	case o.keepLast < 0:
		return usageErrorf("--keep-last %d: want 0 or more turns", o.keepLast)
	case o.maxTokens < 1:
		return usageErrorf("--max-summary-tokens %d: want 1 or more", o.maxTokens)
	case o.ledgerSize < 1:
		return usageErrorf("--ledger-size %d: want 1 or more", o.ledgerSize)
	}
	if !(o.ratio >= 0 && o.ratio <= 1) { // NaN fails both
		return usageErrorf("--summary-ratio must be between 0 and 1, got %g", o.ratio)
	}
	if o.provider.timeout <= 0 {
		return usageErrorf("--timeout %s: want a positive duration", o.provider.timeout)
	}
	return nil
}

// shareRate makes --rate one rate for every process using the store, as
// ask's is: each request (retries included, for a provider) reserves a slot
// in the store first.
func (o *summarizeOptions) shareRate(ctx context.Context) error {
	if o.pace <= 0 || o.dryRun || (o.conversation == "" && !o.all) {
		return nil
	}
	s, err := o.f.Store(ctx)
	if err != nil {
		return err
	}
	// The key ask uses too: one provider's quota, whichever command spends it.
	key := o.provider.name
	if p, ok := format.Lookup(key); ok {
		key += "/" + cmp.Or(o.provider.model, p.DefaultModel)
	} else if o.provider.model != "" {
		key += "/" + o.provider.model
	}
	limit := llm.SlotLimit(func(ctx context.Context) (time.Time, error) { return s.RateSlot(ctx, key, o.pace) }, o.f.Now)
	if slices.Contains(ownSummarizers, o.provider.name) {
		o.wait = limit
	} else {
		o.wait, o.provider.limit = nil, limit
	}
	return nil
}

// summarizeMemoryLimit is the soft limit on the Go heap summarize sets
// unless GOMEMLIMIT does: a long stored conversation is summarized in
// passes that each decode every record again, and the garbage would let
// the heap grow to twice what is live (at 1,450,000 records about 100 MB
// live, 275 MB of RSS without the limit, 196 MB with it). The collector
// works harder instead; it is a soft limit and never fails a run.
const summarizeMemoryLimit = 160 << 20

func limitSummarizeMemory() {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(summarizeMemoryLimit)
	}
}

func summarizeRun(ctx context.Context, o *summarizeOptions) error {
	f := o.f
	if err := o.shareRate(ctx); err != nil {
		return err
	}
	r, err := o.runner()
	if err != nil {
		return err
	}
	limitSummarizeMemory()
	enc := transcript.NewEncoder(f.IO.Out)
	switch {
	case o.batchOut != "":
		return summarizeBatchOut(ctx, o, r)
	case o.batchIn != "":
		return summarizeBatchIn(ctx, o, r, enc)
	case o.all:
		return summarizeAll(ctx, o, r, enc)
	}
	var res summarize.Result
	note := "summarize: %s; transcript passed through unchanged"
	if o.conversation == "" {
		res, err = summarize.Transform(ctx, r, f.IO.In, f.IO.Out)
		res.Summary = nil // Transform wrote it in its place
	} else {
		note = "summarize " + o.conversation + ": %s; nothing written"
		var s summarize.Store
		if s, err = f.Store(ctx); err == nil {
			if res, err = r.Run(ctx, s, o.conversation); errors.Is(err, store.ErrConflict) {
				err = fmt.Errorf("summarize %s: %w", o.conversation, err)
			}
		}
	}
	if err != nil {
		return err
	}
	if res.Skip != "" && !o.dryRun {
		f.warnf(note, res.Skip)
	}
	err = errors.Join(printResult(o, enc, res), enc.Flush())
	if res.Summary != nil { // stored
		return afterCommit(err)
	}
	return err
}

// summarizeAll runs --all with a progress bar on a terminal's stderr,
// printing each summary and failure as it comes, and the tally at the end.
// At a terminal (no --json) each summary is one line for a person instead
// of its record: above the bar when there is one, so that the bar's redraws
// never cut into it, else on stdout.
func summarizeAll(ctx context.Context, o *summarizeOptions, r *summarize.Runner, enc *transcript.Encoder) error {
	f := o.f
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	readable := f.IO.StdoutIsTerminal() && !o.json && !o.dryRun
	var (
		progress *mpb.Progress
		bar      *mpb.Bar
		start    time.Time
		printErr error // the first failure to print a summary (it is stored)
	)
	opts := summarize.AllOptions{
		Jobs: o.jobs,
		Start: func(total int) {
			start = time.Now()
			if f.IO.StderrIsTerminal() && !f.quiet && !o.dryRun {
				// AutoRefresh: mpb would draw nothing on a test's buffer.
				progress = mpb.NewWithContext(ctx, mpb.WithOutput(f.IO.ErrOut), mpb.WithWidth(40), mpb.WithAutoRefresh())
				bar = progress.AddBar(int64(total),
					mpb.PrependDecorators(decor.Name("summarize "), decor.CountersNoUnit("%d/%d")),
					mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)))
			}
		},
		Done: func(res summarize.Result, err error) {
			cancelled := err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled)
			// Lines for people go above a running bar, through it.
			var people io.Writer = f.IO.ErrOut
			if progress != nil {
				people = progress
			}
			switch {
			case err != nil && !cancelled: // the interruption is said once, at the end
				fmt.Fprintf(people, "convo: summarize %s: %s\n", res.Conversation, errorMessage(err))
			case readable && err == nil && res.Summary != nil && !f.quiet:
				if progress == nil {
					people = f.IO.Out
				}
				if _, werr := io.WriteString(people, summaryLine(res)); printErr == nil && progress == nil {
					printErr = werr
				}
			case printErr == nil:
				printErr = printResult(o, enc, res)
			}
			if bar != nil {
				bar.Increment()
			}
		},
	}
	if !o.dryRun {
		// Runners sharing the store (a CI matrix on one PostgreSQL) split
		// the conversations between them by claims; a dry run writes nothing.
		opts.Claims, opts.Owner, opts.ClaimSince = s, runnerID(f), f.Now().UnixMilli()
	}
	tally, err := summarize.All(ctx, s, r, opts)
	if progress != nil {
		progress.Wait()
	}
	printErr = errors.Join(printErr, enc.Flush())
	if start.IsZero() { // the listing failed: nothing was summarized
		return err
	}
	if !o.dryRun {
		stopped := ""
		if tally.Interrupted > 0 {
			stopped = fmt.Sprintf(", %d stopped midway", tally.Interrupted)
		}
		f.warnf("summarize --all: %d conversations in %s: %d summarized, %d with nothing to cover, %d under the trigger, %d held by other runners, %d failed%s",
			tally.Conversations, time.Since(start).Round(time.Millisecond), tally.Summarized, tally.Nothing, tally.NotDue, tally.Held, tally.Failed, stopped)
	}
	switch {
	case err != nil:
		if printErr != nil {
			fmt.Fprintf(f.IO.ErrOut, "convo: the summaries stored were not all printed: %s\n", errorMessage(printErr))
		}
		if ctx.Err() != nil && tally.Summarized > 0 {
			// Each conversation is its own transaction: say what stands.
			return &partialError{err, fmt.Sprintf("%d summaries were stored before that; the other conversations are as they were", tally.Summarized)}
		}
		return err
	case tally.Summarized > 0:
		return afterCommit(printErr)
	}
	return printErr
}

// summaryLine is a summary stored, for a person: the conversation, what
// the summary covers and the tokens of the LLM view before and after.
func summaryLine(res summarize.Result) string {
	md := &res.Summary.Metadata
	var before, after int64
	json.Unmarshal(md.Aux["tokensBefore"], &before)
	json.Unmarshal(md.Aux["tokensAfter"], &after)
	return fmt.Sprintf("summarized %s: %d records into %s, view %d -> %d tokens\n",
		res.Conversation, len(md.SummaryIDs), res.Summary.ID, before, after)
}

// printResult prints the summary stored (unless --quiet) or the text a dry
// run would send.
func printResult(o *summarizeOptions, enc *transcript.Encoder, res summarize.Result) error {
	switch {
	case res.DryRun != "":
		_, err := io.WriteString(o.f.IO.Out, res.DryRun+"\n")
		return err
	case res.Summary != nil && !o.f.quiet:
		return enc.Encode(res.Summary)
	}
	return nil
}

// runner builds the summarize policy the flags describe.
func (o *summarizeOptions) runner() (*summarize.Runner, error) {
	f := o.f
	counter, err := tokens.New(o.tokenizer)
	if err != nil {
		return nil, usageErrorf("--tokenizer: %v", err)
	}
	r := &summarize.Runner{
		Options: summarize.Options{
			KeepLast: o.keepLast, IfOver: o.ifOver, Every: o.every,
			MaxSummaryTokens: o.maxTokens, SummaryRatio: o.ratio, LedgerSize: o.ledgerSize, Counter: counter,
		},
		DryRun: o.dryRun, DeleteOriginals: o.deleteOriginals, Wait: o.wait,
		IDs: f.IDs, Now: f.Now, Logger: f.logger(),
	}
	if o.prompt != "" {
		if r.Options.Prompt, err = textOrFile("--prompt", o.prompt); err != nil {
			return nil, err
		}
	}
	if o.templatePath != "" {
		body, err := textOrFile("--template", "@"+o.templatePath)
		if err != nil {
			return nil, err
		}
		if r.Options.Template, err = summarize.ParseTemplate(o.templatePath, body); err != nil {
			return nil, usageErrorf("--template: %v", err)
		}
	}
	if !o.dryRun && o.batchOut == "" && o.batchIn == "" { // a batch file needs no key
		if r.Summarizer, err = f.newSummarizer(&o.provider, counter); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// summarizeBatchOut writes the requests of --all for the provider's batch
// API to --batch-out, storing nothing.
func summarizeBatchOut(ctx context.Context, o *summarizeOptions, r *summarize.Runner) error {
	f := o.f
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	w, done := f.IO.Out, func() error { return nil }
	if o.batchOut != "-" {
		file, err := os.Create(o.batchOut)
		if err != nil {
			return fmt.Errorf("--batch-out: %w", err)
		}
		w, done = file, file.Close
	}
	tally, err := summarize.BatchOut(ctx, s, r.Options, summarize.BatchOutOptions{
		Provider: o.provider.name, Model: o.provider.model,
		Done: func(res summarize.Result, err error) {
			if err != nil {
				fmt.Fprintf(f.IO.ErrOut, "convo: summarize %s: %s\n", res.Conversation, errorMessage(err))
			}
		},
	}, w)
	if cerr := done(); err == nil && cerr != nil {
		err = fmt.Errorf("--batch-out: %w", cerr)
	}
	f.warnf("summarize --batch-out: %d conversations: %d requests written, %d with nothing to cover, %d under the trigger, %d failed",
		tally.Conversations, tally.Requests, tally.Nothing, tally.NotDue, tally.Failed)
	return err
}

// summarizeBatchIn stores the summaries of the --batch-in result file,
// printing each one stored and naming each result skipped.
func summarizeBatchIn(ctx context.Context, o *summarizeOptions, r *summarize.Runner, enc *transcript.Encoder) error {
	f := o.f
	in := f.IO.In
	if o.batchIn != "-" {
		file, err := os.Open(o.batchIn)
		if err != nil {
			return usageErrorf("--batch-in: %v", err)
		}
		defer file.Close()
		in = file
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	var printErr error
	tally, err := summarize.BatchIn(ctx, s, in, summarize.BatchInOptions{
		Options: r.Options, DeleteOriginals: o.deleteOriginals, IDs: f.IDs, Now: f.Now,
		Done: func(out summarize.BatchOutcome) {
			switch {
			case out.Summary != nil:
				if printErr == nil {
					printErr = printResult(o, enc, out.Result)
				}
			case out.Err != nil:
				conv := out.Conversation
				if conv == "" {
					conv = "?"
				}
				fmt.Fprintf(f.IO.ErrOut, "convo: summarize --batch-in line %d (%s, conversation %s): %s: %s\n", out.Line, out.CustomID, conv, out.Status, errorMessage(out.Err))
			}
		},
	})
	printErr = errors.Join(printErr, enc.Flush())
	var ie *transcript.InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("--batch-in %s: %w", o.batchIn, err)
	}
	f.warnf("summarize --batch-in: %d results: %d stored, %d summarized already, %d conversations changed since the request, %d errored or expired, %d failed",
		tally.Conversations, tally.Stored, tally.Already, tally.Changed, tally.Errored, tally.Failed)
	if err == nil && tally.Stored > 0 {
		return afterCommit(printErr)
	}
	return errors.Join(err, printErr)
}

// runnerID names this process among the runners sharing a store.
func runnerID(f *Factory) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), f.IDs.New(f.nowMillis()))
}
