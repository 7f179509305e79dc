package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/memlimit"
	"github.com/convo-cli/convo/internal/providers"
	"github.com/convo-cli/convo/internal/signals"
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
	yes                             bool // accepted, as every deleting command takes it
	json                            bool // --all: JSONL even at a terminal
	keepLast, keepTokens            int
	ifOver, every                   int
	maxTokens, ledgerSize, jobs     int
	ratio                           float64
	templatePath, prompt, tokenizer string
	rate                            string
	batchOut, batchIn               string                      // --batch-out, --batch-in FILE ("-": stdout, stdin)
	batchStatus                     bool                        // --batch-status
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
fake records, an unanswered last user record, the last --keep-last turns (within
--keep-last-tokens: past it the cut falls inside them, between complete tool calls
and results), and an assistant tool call without its results.

Summarizers: extractive (default: offline, deterministic), exec (--exec 'CMD':
the text on its stdin, the summary from its stdout), or any provider ask can
call: ` + format.NameList(format.CanCall) + ` (openai: any OpenAI-compatible
endpoint with --base-url). A provider gets the same request from summarize
as from ask: endpoint, headers, default model and output limit.
anthropic-compaction and openai-compaction are the providers' own
compaction (Anthropic's on-demand compaction, OpenAI's /responses/compact):
the covered records are sent as the conversation they are, with the
provider's own prompt (--prompt and --template do not reach it), and the
summary keeps the provider's item, which render sends back to it in place of
what it covers (docs/spec.md section 7). openai-compaction's summary is
encrypted: --delete-originals is refused with it.

With --all, stdout gets the summary records as JSONL when it is no terminal
(or with --json); at a terminal, one line per conversation summarized, above
the progress bar (on stderr), and the tally.

Without -c or --all, summarize is a pure transform: a transcript on stdin, the
transcript with the summary placed on stdout.`,
		Example: `  convo summarize -c demo --keep-last 2
  convo summarize --all --if-over 4000 -j 8 --rate 60/m --summarizer openai --model gpt-4o-mini
  convo get -c demo | convo summarize --dry-run
  convo summarize --all --json | jq -r .conversation   # JSONL, as whenever stdout is no terminal
  convo summarize --all --summarizer anthropic --batch-out requests.jsonl
  convo summarize --batch-in results.jsonl             # by the options recorded with each request
  convo summarize --batch-status --json                # the requests written and not yet applied`,
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
	conversationFlag(f, cmd, &o.conversation, "conversation to summarize")
	fl := cmd.Flags()
	fl.BoolVar(&o.all, "all", false, "every stored conversation whose trigger fires")
	fl.IntVar(&o.ifOver, "if-over", 0, "only when the LLM view holds more than this many tokens")
	fl.IntVar(&o.every, "every", 0, "only when this many records stand after the latest summary")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print the text the summarizer would receive; write nothing")
	fl.StringVar(&o.templatePath, "template", "", "Go text/template FILE shaping that text (fields: .Previous, .PreviousRecord, .Records)")
	fl.IntVarP(&o.jobs, "jobs", "j", 4, "with --all: conversations summarized at once")
	fl.BoolVar(&o.json, "json", false, "with --all at a terminal: print the summary records as JSONL, as when stdout is no terminal, instead of a line per conversation; with --batch-status: one JSON object per request (docs/json-output.md)")
	fl.StringVar(&o.rate, "rate", "", "at most N summarizer requests per PERIOD, e.g. 60/m (delayed, never failed)")
	fl.StringVar(&o.batchOut, "batch-out", "", "with --all and --summarizer "+strings.Join(summarize.BatchProviders(), "|")+": write the requests to FILE for the provider's batch API (half price, answered within 24h), storing no summary: each request and its summarize options are recorded as pending (see docs/batch.md)")
	fl.StringVar(&o.batchIn, "batch-in", "", "store the summaries of the batch result FILE of a --batch-out run, by the options recorded with each request (a request not recorded here: give the options of --batch-out); conversations changed since, and errored lines, are skipped and named, and the exit status is 1")
	fl.BoolVar(&o.batchStatus, "batch-status", false, "list the batch requests --batch-out wrote and --batch-in has not applied (dropped after "+summarize.BatchAge()+")")
	fl.BoolVar(&o.yes, "yes", false, "accepted with --delete-originals, as clear and rewind take it (summarize deletes without it)")
	o.addPolicyFlags(cmd, "")
	return cmd
}

// addPolicyFlags adds the flags that shape a summary, which summarize and
// append (for --summarize-if-over and --summarize-every) share; append
// notes its use in each flag's help.
func (o *summarizeOptions) addPolicyFlags(cmd *cobra.Command, note string) {
	fl := cmd.Flags()
	fl.IntVar(&o.keepLast, "keep-last", 4, note+"turns kept verbatim")
	fl.IntVar(&o.keepTokens, "keep-last-tokens", summarize.DefaultKeepLastTokens, note+"bound on the tokens of the turns kept verbatim: past it the cut falls inside them, between complete tool calls and results; 0: no bound")
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
		return exitcode.Usagef("give -c or --all, not both")
	}
	if !o.all && o.conversation == "" && o.batchIn == "" && !o.batchStatus && o.f.IO.StdinIsTerminal() {
		return exitcode.Usagef("give -c ID or --all, or pipe a transcript on stdin")
	}
	if err := flagvalue.ConversationID(o.conversation); err != nil {
		return err
	}
	if o.deleteOriginals && o.provider.name == "openai-compaction" {
		return exitcode.Usagef("--delete-originals does not go with --summarizer openai-compaction: its summary is encrypted, so only the originals can be sent to another provider")
	}
	if o.jobs < 1 {
		return exitcode.Usagef("-j/--jobs %d: want 1 or more", o.jobs)
	}
	if o.ifOver < 0 || o.every < 0 {
		return exitcode.Usagef("--if-over and --every must be 0 (off) or more")
	}
	if err := o.checkPolicy(); err != nil {
		return err
	}
	pace, err := flagvalue.Rate(o.rate)
	if pace > 0 {
		// This process's own pace, until shareRate shares it through the store.
		o.pace, o.wait = pace, llm.SlotLimit(llm.LocalSlots(pace, time.Now), time.Now, nil)
	}
	return err
}

// checkBatch refuses --batch-out and --batch-in where they cannot work.
func (o *summarizeOptions) checkBatch() error {
	b := summarize.Batch{Out: o.batchOut, In: o.batchIn, Status: o.batchStatus, Summarizer: o.provider.name,
		All: o.all, Conversation: o.conversation, DryRun: o.dryRun, Rate: o.rate != ""}
	if err := b.Check(); err != nil {
		return &exitcode.UsageError{Err: err}
	}
	return nil
}

// checkPolicy refuses values of the policy flags that cannot work.
func (o *summarizeOptions) checkPolicy() error {
	if err := o.policy().Check(); err != nil {
		return &exitcode.UsageError{Err: err}
	}
	if o.provider.timeout <= 0 {
		return exitcode.Usagef("--timeout %s: want a positive duration", o.provider.timeout)
	}
	return nil
}

// policy is the summary the flags describe, before the files they name
// are read and the counter is made.
func (o *summarizeOptions) policy() summarize.Options {
	return summarize.Options{KeepLast: o.keepLast, KeepLastTokens: o.keepTokens, IfOver: o.ifOver, Every: o.every, Redact: o.f.secrets.Redact,
		MaxSummaryTokens: o.maxTokens, SummaryRatio: o.ratio, LedgerSize: o.ledgerSize}
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
	o.wait, o.provider.limit = providers.SharedRate(o.provider.name, o.provider.model, o.pace, s.RateSlot, o.f.Now)
	return nil
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
	memlimit.Summarize()
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
	if res.Summary != nil && o.conversation != "" {
		signals.NoteStored(ctx, "storing the summary")
		if _, llm := res.Summary.Metadata.Aux["model"]; llm {
			liveSpans(ctx, f, res.Summary)
		}
	}
	err = errors.Join(res.Print(f.IO.Out, enc, f.quiet), enc.Flush())
	if res.Summary != nil { // stored
		return exitcode.AfterCommit(err)
	}
	return err
}

// runner builds the summarize policy the flags describe.
func (o *summarizeOptions) runner() (*summarize.Runner, error) {
	f := o.f
	counter, err := tokens.New(o.tokenizer)
	if err != nil {
		return nil, exitcode.Usagef("--tokenizer: %v", err)
	}
	r := &summarize.Runner{
		Options: o.policy(),
		DryRun:  o.dryRun, DeleteOriginals: o.deleteOriginals, Wait: o.wait,
		IDs: f.IDs, Now: f.Now, Logger: f.logger(), LongWrite: memlimit.LongWrite,
	}
	r.Options.Counter = counter
	if o.prompt != "" {
		if r.Options.Prompt, err = flagvalue.TextOrFile("--prompt", o.prompt); err != nil {
			return nil, err
		}
	}
	if o.templatePath != "" {
		body, err := flagvalue.TextOrFile("--template", "@"+o.templatePath)
		if err != nil {
			return nil, err
		}
		if r.Options.Template, err = summarize.ParseTemplate(o.templatePath, body); err != nil {
			return nil, exitcode.Usagef("--template: %v", err)
		}
	}
	if !o.dryRun && o.batchOut == "" && o.batchIn == "" { // a batch file needs no key
		if r.Summarizer, err = f.providers().Summarizer(o.provider.spec(), counter); err != nil {
			return nil, err
		}
	}
	if name, ok := format.CompactionProviderOf(o.provider.name); ok && o.dryRun {
		// A provider's compaction is sent the records, not the text: its
		// dry run prints the request body, and calls nothing.
		r.Summarizer = &summarize.Compaction{Provider: name, Model: o.provider.model}
	}
	return r, nil
}

// runnerID names this process among the runners sharing a store.
func runnerID(f *Factory) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), f.IDs.New(f.nowMillis()))
}
