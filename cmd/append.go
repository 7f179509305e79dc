package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/memlimit"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/answer"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/show"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/transcript"
)

// appendOptions are the flags of `convo append` (appendfrom.go reads them
// for --from).
type appendOptions struct {
	f               *Factory
	conversation    string
	role            string
	timing          []string
	aux             []string
	toolCallID      string
	name            string
	isError         bool
	from            string
	format          string // of stdin: jsonl, or markdown as export writes it
	allowIncomplete bool
	summarizeIfOver int
	summarizeEvery  int
	policy          summarizeOptions // the summary --summarize-* makes
	texts           []string         // the TEXT arguments
	textIsFile      bool             // the one TEXT argument names an existing file

	// Set by the checks, without --from.
	an  *transcript.Annotation // what --timing and --aux set
	add *transcript.Record     // the message built from TEXT, if any
}

// newCmdAppend builds `convo append`. runF replaces appendRun in tests
// that check flag parsing alone.
func newCmdAppend(f *Factory, runF func(context.Context, *appendOptions) error) *cobra.Command {
	o := &appendOptions{f: f, policy: summarizeOptions{f: f}}
	cmd := &cobra.Command{
		Use:   "append [-c ID] [--role R] [TEXT...|-]",
		Short: "Append a message, or the records read on stdin, keeping the transcript valid",
		Long: `Append one message built from the arguments (each argument one content
string), or the records and messages read from stdin, one per line, applying
the transcript rules (alternating roles, user first, merges recorded) in one
transaction. Prints the records written or changed as JSONL.

A lone - reads the message's text from stdin, as 'convo ask -' does. A TEXT
argument is always text: to append the records of a file, redirect it
('convo append -c demo < chat.jsonl').

Without -c, append is a pure transform: the transcript on stdin, the
transcript plus the new message on stdout.

Lines may be canonical records, bare messages ({"role":"user","contents":[...]}
or with "content"), or OpenAI-style chat messages. --timing and --aux apply to
every message appended.

--format markdown reads what 'convo export --format markdown' wrote: the
same records come back byte for byte (ids, roles, contents, tool calls,
metadata). A section written by hand ("## user", then its text) is read as a
bare message.`,
		Example: `  convo append -c demo --role user "Hi there" "how are you?"
  convo append -c demo --role assistant --timing llmEnd=1744815823058 "Fine."
  jq -c '.messages[]' chat.json | convo append -c demo
  convo export -c demo --format markdown > demo.md && convo append -c copy --format markdown < demo.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.texts = args
			if o.from == "" { // runFrom checks its own flags
				if err := o.check(); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return appendRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to append to (without it: transform stdin to stdout)")
	fl := cmd.Flags()
	fl.StringVar(&o.role, "role", "user", "role of the message built from TEXT: system, user, assistant, tool or summary")
	fl.StringArrayVar(&o.timing, "timing", nil, "set metadata.timing KEY to MS (ms since the epoch, or now); repeatable")
	fl.StringArrayVar(&o.aux, "aux", nil, "set metadata.aux KEY to a JSON value; repeatable")
	fl.StringVar(&o.toolCallID, "tool-call-id", "", "with --role tool: the id of the call this result answers")
	fl.StringVar(&o.name, "name", "", "with --role tool: the tool's name")
	fl.BoolVar(&o.isError, "is-error", false, "with --role tool: the tool failed")
	fl.IntVar(&o.summarizeIfOver, "summarize-if-over", 0, "after appending, summarize when the LLM view holds more tokens than this (a failure is reported, the append kept)")
	fl.IntVar(&o.summarizeEvery, "summarize-every", 0, "after appending, summarize when this many records stand after the latest summary (with --summarize-if-over: when both hold)")
	o.policy.addPolicyFlags(cmd, "with --summarize-*: ")
	fl.StringVar(&o.from, "from", "", "read a provider's response body on stdin as the assistant's answer: "+format.NameList(format.CanParse))
	fl.StringVar(&o.format, "format", string(export.JSONL), "format of stdin: jsonl, or markdown as export --format markdown writes it")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(appendFormats, cobra.ShellCompDirectiveNoFileComp))
	fl.BoolVar(&o.allowIncomplete, "allow-incomplete", false, "with --from: append an answer cut short (output limit, safety filter) instead of failing")
	return cmd
}

// appendFormats are what append --format reads.
var appendFormats = []string{string(export.JSONL), string(export.Markdown)}

// check reads the flags of an append without --from: the metadata, and
// the message TEXT builds.
func (o *appendOptions) check() error {
	if o.conversation != "" {
		if err := flagvalue.ConversationID(o.conversation); err != nil {
			return err
		}
	}
	switch o.format {
	case string(export.JSONL):
	case string(export.Markdown):
		if len(o.texts) > 0 {
			return exitcode.Usagef("--format markdown reads stdin: give no TEXT arguments")
		}
	default:
		return exitcode.Usagef("--format %q: want jsonl or markdown", o.format)
	}
	switch {
	case o.summarizeIfOver < 0:
		return exitcode.Usagef("--summarize-if-over %d: want 0 (off) or more tokens", o.summarizeIfOver)
	case o.summarizeEvery < 0:
		return exitcode.Usagef("--summarize-every %d: want 0 (off) or more records", o.summarizeEvery)
	}
	if err := o.policy.checkPolicy(); err != nil {
		return err
	}
	var err error
	if o.an, err = flagvalue.Annotation(o.timing, o.aux, nil, o.f.nowMillis()); err != nil {
		return err
	}
	if len(o.texts) == 1 && o.texts[0] != "-" {
		// A file's name is stored as it is, but one who meant the file
		// is told how to read it.
		if fi, err := os.Stat(o.texts[0]); err == nil && !fi.IsDir() {
			o.textIsFile = true
		}
	}
	// "-" reads the message's text from stdin, as ask - does.
	if o.texts, err = flagvalue.Texts(o.f.IO.In, o.texts); err != nil {
		return err
	}
	if o.add, err = flagvalue.Message(o.texts, o.role, o.toolCallID, o.name, o.isError); err != nil {
		return err
	}
	if o.add != nil {
		_ = o.an.Apply(o.add) // annotationFlags checked the keys
	} else if o.conversation != "" && o.f.IO.StdinIsTerminal() {
		return exitcode.Usagef("nothing to append: give TEXT arguments or pipe records on stdin")
	}
	return nil
}

func appendRun(ctx context.Context, o *appendOptions) error {
	f := o.f
	if o.from != "" {
		if o.format != string(export.JSONL) {
			return exitcode.Usagef("--from reads a provider's response body: --format does not apply")
		}
		return o.runFrom(ctx, o.texts)
	}
	if o.format == string(export.Markdown) {
		// The markdown becomes JSONL lines that the usual decoder reads
		// and checks; it is no regular file any more.
		streams := *f.IO
		streams.In = export.NewMarkdownReader(f.IO.In)
		streams.SetStdinFile(false)
		f.IO = &streams
	}
	if o.conversation == "" {
		return o.transform(ctx)
	}
	if o.add != nil {
		return o.storeOne(ctx)
	}
	dec, err := o.decoder(ctx, o.conversation)
	if err != nil {
		return err
	}
	if f.IO.StdinIsFile() {
		// A file cannot stall, so it streams inside the transaction (a bad
		// line still rolls the whole append back).
		recs := dec.Stream()
		return o.store(ctx, func(yield func(*transcript.Record) error) error {
			return recs(func(r *transcript.Record) error {
				if err := o.an.Apply(r); err != nil {
					return err
				}
				return yield(r)
			})
		})
	}
	// A pipe is read and checked to its end before the write transaction
	// opens: a producer that pauses must not hold the store's write lock.
	staged, err := transcript.Stage(dec.Stream(), o.an.Apply, transcript.DefaultStageMemory)
	if err != nil {
		return err
	}
	defer staged.Close()
	return o.store(ctx, staged.Stream())
}

// transform is append without -c: the transcript on stdin, then the new
// message, on stdout; nothing is stored.
func (o *appendOptions) transform(ctx context.Context) error {
	f := o.f
	var in *transcript.Decoder
	if !f.IO.StdinIsTerminal() {
		in, _ = o.decoder(ctx, "") // no store: no error
	} else if f.IO.StderrIsTerminal() {
		// A person who meant to store: say that nothing is.
		f.warnf("no -c: nothing is stored, the record is only printed (append -c ID stores it)")
	}
	if err := transcript.AppendStream(in, f.IO.Out, o.add, o.an, f.IDs, f.nowMillis); err != nil {
		return err
	}
	o.noteFileText()
	return nil
}

// noteFileText tells one whose lone TEXT argument names a file that its
// name, not the file, was appended, and how to read the file.
func (o *appendOptions) noteFileText() {
	if !o.textIsFile {
		return
	}
	cmd := "convo append"
	if o.conversation != "" {
		cmd += " -c " + show.ShellWord(o.conversation)
	}
	// A warning that what was stored may not be what was meant: -q,
	// which silences echoes and progress, does not silence it.
	o.f.alertf("%s names a file, but its name was stored as text; to read the file: `%s < %s`", show.ShellWord(o.texts[0]), cmd, show.ShellWord(o.texts[0]))
}

// store appends the records of recs to the stored conversation in one
// transaction, prints the records written or changed, then runs the
// --summarize-if-over policy, whose failure is reported but does not undo
// the append. With after, the append is made only if the conversation's
// last record is still after (else store.ErrConflict, nothing stored).
func (o *appendOptions) store(ctx context.Context, recs transcript.Stream, after ...store.Last) error {
	a := o.f
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	var res store.AppendResult
	bulk := memlimit.Bulk()
	if len(after) > 0 {
		res, err = s.AppendAfter(ctx, o.conversation, after[0], a.IDs, a.secrets.Guarded(recs))
	} else {
		res, err = s.Append(ctx, o.conversation, a.IDs, a.secrets.Guarded(recs))
	}
	bulk()
	if err != nil {
		return err
	}
	if n := res.Inserted + res.Merged; n > 0 {
		signals.NoteStored(ctx, "storing %s", plural(n, "record"))
	}
	if res.Skipped > 0 {
		a.warnf("%d record(s) already stored, skipped", res.Skipped)
	}
	// The append is committed: from here on a failure loses only the
	// report of it.
	enc := transcript.NewEncoder(a.IO.Out)
	if !a.quiet && res.ToSeq > 0 {
		err = s.Read(ctx, o.conversation, store.ReadOptions{AfterSeq: res.FromSeq, UpToSeq: res.ToSeq}, func(r store.Row) error {
			return enc.WriteLine(r.Body)
		})
		if err != nil {
			return exitcode.AfterCommit(errors.Join(err, enc.Flush()))
		}
	}
	if (o.summarizeIfOver > 0 || o.summarizeEvery > 0) && res.ToSeq > 0 {
		o.autoSummarize(ctx, s, enc)
	}
	return exitcode.AfterCommit(enc.Flush())
}

// autoSummarize runs summarize --if-over/--every after an append, as the
// reference memory service's strategy (seed 004) did: the same Runner as
// summarize -c, shaped by the same flags. A failure is reported and the
// append is kept.
func (o *appendOptions) autoSummarize(ctx context.Context, s store.Store, enc *transcript.Encoder) {
	a := o.f
	p := o.policy
	p.conversation, p.ifOver, p.every = o.conversation, o.summarizeIfOver, o.summarizeEvery
	r, err := p.runner()
	if err == nil {
		var res summarize.Result
		if res, err = r.Run(ctx, s, o.conversation); err == nil && res.Summary != nil && !a.quiet {
			err = enc.Encode(res.Summary)
		}
	}
	if err != nil {
		fmt.Fprintf(a.IO.ErrOut, "convo: the append is stored; summarizing after it failed: %s\n", exitcode.Message(err))
	}
}

// decoder reads append's stdin (the records and messages of a plain
// append) with the checks of an append: with conv, records moved into conv
// (said on stderr, as every change reading makes), and tool results judged
// against the last stored records as well as the lines before them.
func (o *appendOptions) decoder(ctx context.Context, conv string) (*transcript.Decoder, error) {
	dec := transcript.NewDecoder(o.f.IO.In)
	dec.Warn = func(line int, msg string) { o.f.warnf("line %d: %s", line, msg) }
	if conv == "" {
		return dec, nil
	}
	s, err := o.f.Store(ctx)
	if err != nil {
		return nil, err
	}
	if err := answer.CheckAppend(ctx, s, dec, conv); err != nil {
		return nil, err
	}
	return dec, nil
}

// storeOne stores the record the flags and arguments make (o.add); a tool
// result only after the call it answers, since the store must never hold
// what render refuses: an orphan result.
func (o *appendOptions) storeOne(ctx context.Context) error {
	if o.add.Message.Role == transcript.RoleTool {
		s, err := o.f.Store(ctx)
		if err != nil {
			return err
		}
		if err := answer.CheckToolResult(ctx, s, o.conversation, o.add); err != nil {
			return err
		}
	}
	if err := o.store(ctx, transcript.Slice(*o.add)); err != nil {
		return err
	}
	o.noteFileText()
	return nil
}
