package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/time/rate"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

type summarizeOptions struct {
	conversation    string
	all             bool
	keepLast        int
	ifOver, every   int
	dryRun          bool
	templatePath    string
	prompt          string
	tokenizer       string
	maxTokens       int
	ratio           float64
	ledgerSize      int
	deleteOriginals bool
	jobs            int
	rate            string
	provider        providerOptions
}

// summaryJob is everything one summarization needs, built once per command.
type summaryJob struct {
	opt        summarize.Options
	summarizer summarize.Summarizer
	limiter    *rate.Limiter
	deleteOrig bool
	dryRun     bool
	// slots, when set, bounds the summarizer requests in flight (-j); the
	// store reads and writes around them run in more workers, so they
	// overlap with the waits instead of adding to them.
	slots chan struct{}
}

func (a *Factory) newSummarizeCmd() *cobra.Command {
	var o summarizeOptions
	cmd := &cobra.Command{
		Use:   "summarize -c ID | --all",
		Short: "Fold old turns into one summary record so each LLM call sends fewer tokens",
		Long: `Fold the old part of a conversation into one summary record, placed right after
the last record it covers. The previous summary is part of what the new one covers,
so one summary always stands for everything before it. Never covered: system and
fake records, an unanswered last user record, the last --keep-last turns, and an
assistant tool call without its results.

Summarizers: extractive (default: offline, deterministic), gemini, openai (any
OpenAI-compatible endpoint), anthropic, exec (--exec 'CMD': the text on its
stdin, the summary from its stdout).

Without -c or --all, summarize is a pure transform: a transcript on stdin, the
transcript with the summary placed on stdout.`,
		Example: `  convo summarize -c demo --keep-last 2
  convo summarize --all --if-over 4000 -j 8 --rate 60/m --summarizer openai --model gpt-4o-mini
  convo get -c demo | convo summarize --dry-run`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runSummarize(cmd.Context(), &o)
		},
	}
	a.conversationFlag(cmd, &o.conversation, "conversation to summarize")
	f := cmd.Flags()
	f.BoolVar(&o.all, "all", false, "every stored conversation whose trigger fires")
	f.IntVar(&o.keepLast, "keep-last", 4, "turns kept verbatim")
	f.IntVar(&o.ifOver, "if-over", 0, "only when the LLM view holds more than this many tokens")
	f.IntVar(&o.every, "every", 0, "only when this many records stand after the latest summary")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the text the summarizer would receive; write nothing")
	f.StringVar(&o.templatePath, "template", "", "Go text/template FILE shaping that text (fields: .Previous, .PreviousRecord, .Records)")
	f.StringVar(&o.prompt, "prompt", "", "instruction given to the summarizer: TEXT or @FILE")
	f.StringVar(&o.tokenizer, "tokenizer", tokens.Default, "token encoding: o200k_base or cl100k_base")
	f.IntVar(&o.maxTokens, "max-summary-tokens", summarize.DefaultMaxSummaryTokens, "bound on the summary's length")
	f.Float64Var(&o.ratio, "summary-ratio", 0, "bound the summary by this share of the tokens it stands for (0 to 1), up to --max-summary-tokens: it grows with the conversation")
	f.IntVar(&o.ledgerSize, "ledger-size", summarize.DefaultLedgerSize, "bound on the facts carried verbatim from summary to summary")
	f.BoolVar(&o.deleteOriginals, "delete-originals", false, "delete the covered records, in the transaction that stores the summary")
	f.IntVarP(&o.jobs, "jobs", "j", 4, "with --all: conversations summarized at once")
	f.StringVar(&o.rate, "rate", "", "at most N summarizer requests per PERIOD, e.g. 60/m (delayed, never failed)")
	o.provider.addFlags(cmd, "summarizer", "extractive")
	return cmd
}

func (a *Factory) runSummarize(ctx context.Context, o *summarizeOptions) error {
	if o.all && o.conversation != "" {
		return usageErrorf("give -c or --all, not both")
	}
	if o.conversation != "" {
		if err := checkConversationID(o.conversation); err != nil {
			return err
		}
	}
	if o.keepLast < 0 || o.jobs < 1 || o.maxTokens < 1 {
		return usageErrorf("--keep-last must be 0 or more, -j and --max-summary-tokens 1 or more")
	}
	if o.ratio < 0 || o.ratio > 1 {
		return usageErrorf("--summary-ratio must be between 0 and 1, got %g", o.ratio)
	}
	job, err := a.newSummaryJob(o)
	if err != nil {
		return err
	}
	switch {
	case o.all:
		return a.summarizeAll(ctx, job, o.jobs)
	case o.conversation != "":
		s, err := a.Store(ctx)
		if err != nil {
			return err
		}
		return a.summarizeStored(ctx, s, o.conversation, job, true)
	}
	return a.summarizeTransform(ctx, job)
}

func (a *Factory) newSummaryJob(o *summarizeOptions) (*summaryJob, error) {
	counter, err := tokens.New(o.tokenizer)
	if err != nil {
		return nil, usageErrorf("--tokenizer: %v", err)
	}
	opt := summarize.Options{
		KeepLast: o.keepLast, IfOver: o.ifOver, Every: o.every,
		MaxSummaryTokens: o.maxTokens, SummaryRatio: o.ratio, LedgerSize: o.ledgerSize, Counter: counter,
	}
	if o.prompt != "" {
		p, err := textOrFile("--prompt", o.prompt)
		if err != nil {
			return nil, err
		}
		opt.Prompt = p
	}
	if o.templatePath != "" {
		body, err := os.ReadFile(o.templatePath)
		if err != nil {
			return nil, usageErrorf("--template: %v", err)
		}
		t, err := summarize.ParseTemplate(o.templatePath, string(body))
		if err != nil {
			return nil, usageErrorf("--template: %v", err)
		}
		opt.Template = t
	}
	limiter, err := parseRate(o.rate)
	if err != nil {
		return nil, err
	}
	job := &summaryJob{opt: opt, limiter: limiter, deleteOrig: o.deleteOriginals, dryRun: o.dryRun}
	if !o.dryRun {
		if job.summarizer, err = a.newSummarizer(&o.provider, counter); err != nil {
			return nil, err
		}
	}
	return job, nil
}

// textOrFile reads a TEXT|@FILE flag value.
func textOrFile(flag, v string) (string, error) {
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return "", usageErrorf("%s: %v", flag, err)
		}
		return string(b), nil
	}
	return v, nil
}

// outcome is what summarizing one conversation came to.
type outcome struct {
	skip    summarize.Skip
	summary *transcript.Record
}

// summarizeStored summarizes one stored conversation. verbose says whether
// to tell the person about skips (single-conversation runs do).
func (a *Factory) summarizeStored(ctx context.Context, s *store.Store, conv string, job *summaryJob, verbose bool) error {
	res, err := a.summarizeOne(ctx, s, conv, job)
	if err != nil {
		return err
	}
	switch {
	case job.dryRun:
	case res.skip != "":
		if verbose {
			a.warnf("summarize %s: %s; nothing written", conv, res.skip)
		}
	default:
		if !a.quiet {
			enc := transcript.NewEncoder(a.IO.Out)
			if err := enc.Encode(res.summary); err != nil {
				return err
			}
			return enc.Flush()
		}
	}
	return nil
}

func (a *Factory) summarizeOne(ctx context.Context, s *store.Store, conv string, job *summaryJob) (outcome, error) {
	var recs []transcript.Record
	var readSeq int64
	err := s.Read(ctx, conv, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		r, err := transcript.ParseLine(row.Body)
		if err != nil {
			return fmt.Errorf("stored record is corrupt: %w", err)
		}
		r.Conversation = conv
		readSeq = max(readSeq, row.Seq)
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return outcome{}, err
	}
	sum, skip, err := a.runPlan(ctx, recs, job)
	if err != nil || sum == nil {
		return outcome{skip: skip}, err
	}
	prev := ""
	if i := transcript.LatestSummary(recs); i >= 0 {
		prev = recs[i].ID
	}
	err = s.WriteSummary(ctx, conv, store.SummaryWrite{
		Anchor: sum.anchor, Summary: &sum.record, DeleteCovered: job.deleteOrig,
		Check: true, PreviousID: prev, ReadSeq: readSeq,
	})
	if err != nil {
		return outcome{}, fmt.Errorf("summarize %s: %w", conv, err)
	}
	return outcome{summary: &sum.record}, nil
}

type placedSummary struct {
	record transcript.Record
	anchor string
	span   transcript.Span
}

// runPlan plans, calls the summarizer and builds the summary record; with
// --dry-run it prints the summarizer's input instead.
func (a *Factory) runPlan(ctx context.Context, recs []transcript.Record, job *summaryJob) (*placedSummary, summarize.Skip, error) {
	plan, skip, err := summarize.Prepare(recs, job.opt)
	if err != nil || plan == nil {
		return nil, skip, err
	}
	if job.dryRun {
		_, err := io.WriteString(a.IO.Out, plan.Input.Compose()+"\n")
		return nil, "", err
	}
	if job.limiter != nil {
		if err := job.limiter.Wait(ctx); err != nil {
			return nil, "", err
		}
	}
	if job.slots != nil {
		select {
		case job.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
	start := time.Now()
	out, err := job.summarizer.Summarize(ctx, plan.Input)
	if job.slots != nil {
		<-job.slots
	}
	if err != nil {
		return nil, "", fmt.Errorf("summarizer %s: %w", job.summarizer.Name(), err)
	}
	a.logger().Info("summarized", "summarizer", job.summarizer.Name(), "model", out.Model, "covered", len(plan.Span.Covered),
		"latency_ms", time.Since(start).Milliseconds())
	now := a.nowMillis()
	rec, err := plan.Record(out, job.summarizer.Name(), a.IDs.New(now), now, job.opt)
	if err != nil {
		return nil, "", err
	}
	return &placedSummary{record: rec, anchor: plan.AnchorID(), span: plan.Span}, "", nil
}

// summarizeTransform: stdin transcript, stdout transcript with the summary
// placed. Only the records from the latest summary on are held in memory.
func (a *Factory) summarizeTransform(ctx context.Context, job *summaryJob) error {
	if a.IO.StdinIsTerminal() {
		return usageErrorf("give -c ID or --all, or pipe a transcript on stdin")
	}
	enc := transcript.NewEncoder(a.IO.Out)
	var tail []transcript.Record
	index := map[string]int{}
	app := transcript.NewAppender("", nil, a.IDs, a.nowMillis)
	err := transcript.ApplyRules(transcript.NewDecoder(a.IO.In), app, func(ch transcript.Change) error {
		if ch.Kind == transcript.Merged {
			tail[index[ch.Record.ID]] = ch.Record.Clone()
			return nil
		}
		if ch.Record.Message.Role == transcript.RoleSummary {
			// Everything before a summary is settled: write it out.
			for i := range tail {
				if err := enc.Encode(&tail[i]); err != nil {
					return err
				}
			}
			tail = tail[:0]
			clear(index)
		}
		index[ch.Record.ID] = len(tail)
		tail = append(tail, ch.Record.Clone())
		return nil
	})
	if err != nil {
		return err
	}
	sum, skip, err := a.runPlan(ctx, tail, job)
	if err != nil {
		return err
	}
	if job.dryRun {
		return nil
	}
	if sum != nil {
		sum.record.Conversation = app.Conversation
		tail = transcript.PlaceSummary(tail, sum.record, sum.span, job.deleteOrig)
	} else {
		a.warnf("summarize: %s; transcript passed through unchanged", skip)
	}
	for i := range tail {
		if err := enc.Encode(&tail[i]); err != nil {
			return err
		}
	}
	return enc.Flush()
}

// summarizeAll runs the policy over every stored conversation, jobs at a
// time. One failure is reported and the rest go on; the error at the end
// says that something failed.
func (a *Factory) summarizeAll(ctx context.Context, job *summaryJob, jobs int) error {
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	var ids []string
	if err := s.Conversations(ctx, func(c store.ConversationInfo) error {
		ids = append(ids, c.ID)
		return nil
	}); err != nil {
		return err
	}
	var bar *mpb.Bar
	var progress *mpb.Progress
	if a.IO.StderrIsTerminal() && !a.quiet && !job.dryRun {
		progress = mpb.NewWithContext(ctx, mpb.WithOutput(a.IO.ErrOut), mpb.WithWidth(40))
		bar = progress.AddBar(int64(len(ids)),
			mpb.PrependDecorators(decor.Name("summarize "), decor.CountersNoUnit("%d/%d")),
			mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)))
	}
	var (
		mu                            sync.Mutex
		writeErr                      error // the first failure to print a summary (it is stored)
		done, nothing, notDue, failed atomic.Int64
		enc                           = transcript.NewEncoder(a.IO.Out)
		work                          = make(chan string)
		wg                            sync.WaitGroup
	)
	job.slots = make(chan struct{}, jobs)
	for range min(2*jobs, max(len(ids), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for conv := range work {
				res, err := a.summarizeOne(ctx, s, conv, job)
				mu.Lock()
				switch {
				case err != nil:
					failed.Add(1)
					fmt.Fprintf(a.IO.ErrOut, "convo: summarize %s: %s\n", conv, errorMessage(err))
				case res.skip == summarize.SkipNothing:
					nothing.Add(1)
				case res.skip == summarize.SkipTrigger:
					notDue.Add(1)
				case res.summary != nil:
					done.Add(1)
					if !a.quiet && writeErr == nil {
						writeErr = enc.Encode(res.summary)
					}
				}
				mu.Unlock()
				if bar != nil {
					bar.Increment()
				}
			}
		}()
	}
	start := time.Now()
	for _, id := range ids {
		if ctx.Err() != nil {
			break
		}
		work <- id
	}
	close(work)
	wg.Wait()
	if progress != nil {
		progress.Wait()
	}
	if err := errors.Join(writeErr, enc.Flush()); err != nil {
		return err
	}
	if !job.dryRun {
		a.warnf("summarize --all: %d conversations in %s: %d summarized, %d with nothing to cover, %d under the trigger, %d failed",
			len(ids), time.Since(start).Round(time.Millisecond), done.Load(), nothing.Load(), notDue.Load(), failed.Load())
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if failed.Load() > 0 {
		return fmt.Errorf("%d of %d conversations failed to summarize", failed.Load(), len(ids))
	}
	return nil
}
