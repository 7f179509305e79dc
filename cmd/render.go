package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

type renderOptions struct {
	conversation string
	provider     string
	system       string
	noSummary    bool
	lenient      bool
	body         bool
	model        string
	maxTokens    int
	// temperature is a string so that "unset" differs from 0 whether it
	// comes from the command line, the environment or the config file.
	temperature string
}

func (a *Factory) newRenderCmd() *cobra.Command {
	var o renderOptions
	cmd := &cobra.Command{
		Use:   "render --provider P [-c ID]",
		Short: "Print the LLM-facing view as a provider's request payload",
		Long: `Print what the LLM is sent of a conversation (the records after the latest
summary, less system and summary records) as the request payload of provider
P: ` + format.NameList(format.CanRender) + `.

Without --body, only the system and messages fields are printed, as one JSON
object; with --body --model M, the whole request body. The system prompt is
the latest system record, or --system; the latest summary is added to it as a
labelled section, unless --no-summary. Without -c, the transcript is read on
stdin and the transcript rules are applied to it first.

Content strings become one text part each where the provider's messages take
parts (anthropic, gemini, bedrock, vercel) and are joined by a blank line
where they take one string (openai, ollama, vercel-legacy, and the system
prompt of openai, ollama, vercel and vercel-legacy).

A tool call without its result, a result without its call, or arguments
that are not a JSON object where the provider needs one are invalid input
(exit 3, naming the record); --lenient repairs them and says so on stderr.

--body writes the output limit --max-tokens gives, or the provider's default
(` + defaultLimits() + `; none for the others, whose own default then
applies). Gemini and Bedrock take the model in the URL, not in the body.`,
		Example: `  convo render -c demo --provider openai
  convo render -c demo --provider anthropic --body --model claude-sonnet-4-5 |
    curl -s https://api.anthropic.com/v1/messages -H "x-api-key: $ANTHROPIC_API_KEY" \
      -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' -d @- |
    convo append -c demo --from anthropic
  convo get -c demo | convo render --provider gemini --system @prompt.txt`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRender(cmd.Context(), &o)
		},
	}
	a.conversationFlag(cmd, &o.conversation, "conversation to render (without it: the transcript on stdin)")
	f := cmd.Flags()
	f.StringVar(&o.provider, "provider", "", "request format: "+format.NameList(format.CanRender))
	f.StringVar(&o.system, "system", "", "system prompt TEXT, or @FILE to read it from a file, instead of the stored one")
	f.BoolVar(&o.noSummary, "no-summary", false, "leave the latest summary out of the system prompt")
	f.BoolVar(&o.lenient, "lenient", false, "repair unmatched tool calls and results and non-object arguments instead of failing")
	f.BoolVar(&o.body, "body", false, "print a whole request body (needs --model, except for gemini and bedrock)")
	f.StringVar(&o.model, "model", "", "with --body: the model")
	f.IntVar(&o.maxTokens, "max-tokens", 0, "with --body: the output token limit (default: "+defaultLimits()+")")
	f.StringVar(&o.temperature, "temperature", "", "with --body: the sampling temperature")
	_ = cmd.RegisterFlagCompletionFunc("provider", cobra.FixedCompletions(format.Names(format.CanRender), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// defaultLimits names the providers whose body carries an output limit
// when none is given, with it: "anthropic 4096".
func defaultLimits() string {
	var out []string
	for _, p := range format.Providers(format.CanRender) {
		if p.MaxTokens > 0 {
			out = append(out, p.Name+" "+strconv.Itoa(p.MaxTokens))
		}
	}
	return strings.Join(out, ", ")
}

// formatRequest checks the flags and turns them into a format.Request.
func (a *Factory) formatRequest(o *renderOptions) (format.Request, error) {
	opt := format.Request{Provider: o.provider, Lenient: o.lenient, Warn: a.warnf, Body: o.body, Model: o.model, MaxTokens: o.maxTokens}
	prov, ok := format.Lookup(o.provider)
	switch {
	case o.provider == "":
		return opt, usageErrorf("missing --provider (one of %s)", format.NameList(format.CanRender))
	case !ok || !prov.CanDo(format.CanRender):
		return opt, usageErrorf("--provider %q: want one of %s", o.provider, format.NameList(format.CanRender))
	case !o.body && (o.model != "" || o.maxTokens != 0 || o.temperature != ""):
		return opt, usageErrorf("--model, --max-tokens and --temperature shape a whole request body: add --body")
	case o.maxTokens < 0:
		return opt, usageErrorf("--max-tokens %d: want a positive number", o.maxTokens)
	case o.body && o.model == "" && !prov.ModelInURL:
		return opt, usageErrorf("--body needs --model for %s", o.provider)
	}
	if o.model != "" && prov.ModelInURL {
		a.warnf("%s takes the model in the URL, not in the body: --model %s is left out", o.provider, o.model)
	}
	if o.temperature != "" {
		t, err := strconv.ParseFloat(o.temperature, 64)
		if err != nil || t < 0 {
			return opt, usageErrorf("--temperature %q: want a number of 0 or more", o.temperature)
		}
		opt.Temperature = &t
	}
	if o.system != "" {
		text := o.system
		if name, ok := strings.CutPrefix(text, "@"); ok {
			b, err := os.ReadFile(name)
			if err != nil {
				return opt, usageErrorf("--system: %v", err)
			}
			// A file's final newline ends its last line; it is not prompt text.
			text = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		}
		opt.System = []string{text}
	}
	return opt, nil
}

func (a *Factory) runRender(ctx context.Context, o *renderOptions) error {
	opt, err := a.formatRequest(o)
	if err != nil {
		return err
	}
	if o.conversation != "" {
		if err := checkConversationID(o.conversation); err != nil {
			return err
		}
		return a.renderStored(ctx, o, opt)
	}
	if a.IO.StdinIsTerminal() {
		return usageErrorf("nothing to render: give -c or pipe a transcript on stdin")
	}
	return a.renderStdin(o, opt)
}

// renderStored streams the stored view: the latest system record, then the
// records from the latest summary on.
func (a *Factory) renderStored(ctx context.Context, o *renderOptions, opt format.Request) error {
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	if opt.System == nil {
		body, err := s.LatestSystem(ctx, o.conversation)
		if err != nil {
			return err
		}
		if body != nil {
			var sys transcript.Record
			if err := json.Unmarshal(body, &sys); err != nil {
				return fmt.Errorf("stored system record is corrupt: %w", err)
			}
			opt.System = sys.Message.Contents
		}
	}
	r, err := format.NewRenderer(a.IO.Out, opt)
	if err != nil {
		return err
	}
	read := func(fn func(store.Row) error) error {
		return s.Read(ctx, o.conversation, store.ReadOptions{FromLatestSummary: true}, fn)
	}
	keep := func(row store.Row) bool {
		switch transcript.Role(row.Role) {
		case transcript.RoleSystem:
			return false
		case transcript.RoleSummary:
			return !o.noSummary
		}
		return true
	}
	if err := pipeline(read, keep, r.AddJSON); err != nil {
		return err
	}
	return r.Close()
}

// pipeline calls add with the body of each row read that keep accepts, in
// order, on a second goroutine: SQLite reads the next rows while the last
// ones are decoded and rendered, so rendering a long conversation costs
// about what reading it does. Bodies travel in batches copied out of the
// rows (a row's body is valid only during its callback); three batches
// circulate, so memory stays bounded. The first error stops both sides.
func pipeline(read func(func(store.Row) error) error, keep func(store.Row) bool, add func([]byte) error) error {
	type batch struct {
		buf  []byte
		ends []int
	}
	const batchBytes = 256 << 10
	full, free := make(chan *batch, 2), make(chan *batch, 3)
	for range 3 {
		free <- &batch{}
	}
	var failed atomic.Bool
	done := make(chan error, 1)
	go func() {
		var err error
		for b := range full {
			start := 0
			for _, end := range b.ends {
				if err != nil {
					break
				}
				if err = add(b.buf[start:end]); err != nil {
					failed.Store(true)
				}
				start = end
			}
			b.buf, b.ends = b.buf[:0], b.ends[:0]
			free <- b
		}
		done <- err
	}()
	errStop := errors.New("stop")
	cur := <-free
	rerr := read(func(row store.Row) error {
		if failed.Load() {
			return errStop
		}
		if !keep(row) {
			return nil
		}
		cur.buf = append(cur.buf, row.Body...)
		cur.ends = append(cur.ends, len(cur.buf))
		if len(cur.buf) >= batchBytes {
			full <- cur
			cur = <-free
		}
		return nil
	})
	if len(cur.ends) > 0 && rerr == nil {
		full <- cur
	}
	close(full)
	if err := <-done; err != nil {
		return err
	}
	return rerr
}

// renderStdin reads a whole transcript, applies the rules to it as append
// does, and renders its view.
func (a *Factory) renderStdin(o *renderOptions, opt format.Request) error {
	dec := transcript.NewDecoder(a.IO.In)
	app := transcript.NewAppender("", nil, a.IDs, a.nowMillis)
	line := map[string]int{} // where each record of the view starts, for errors
	var system, summary *transcript.Record
	var view []*transcript.Record // records after the latest summary
	err := transcript.ApplyRules(dec, app, func(ch transcript.Change) error {
		if ch.Kind == transcript.Merged {
			return nil // merged in place into a record the view holds
		}
		line[ch.Record.ID] = dec.Line()
		switch ch.Record.Message.Role {
		case transcript.RoleSystem:
			system = ch.Record
		case transcript.RoleSummary:
			summary, view = ch.Record, view[:0]
		default:
			view = append(view, ch.Record)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if opt.System == nil && system != nil {
		opt.System = system.Message.Contents
	}
	if summary != nil && !o.noSummary {
		opt.Summary = strings.Join(summary.Message.Contents, "\n\n")
	}
	r, err := format.NewRenderer(a.IO.Out, opt)
	if err != nil {
		return err
	}
	for _, rec := range view {
		if err = r.Add(rec); err != nil {
			break
		}
	}
	if err == nil {
		err = r.Close()
	}
	var ie *transcript.InputError
	var re *format.RecordError
	if errors.As(err, &ie) && errors.As(err, &re) {
		ie.Line = line[re.ID]
	}
	return err
}
