package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/summarize"
	"github.com/convo-cli/convo/pkg/tokens"
	"github.com/convo-cli/convo/pkg/transcript"
)

type appendOptions struct {
	conversation    string
	role            string
	timing          []string
	aux             []string
	toolCallID      string
	name            string
	isError         bool
	from            string
	allowIncomplete bool
	summarizeIfOver int
	summarizer      string
	keepLast        int
}

func (a *Factory) newAppendCmd() *cobra.Command {
	var o appendOptions
	cmd := &cobra.Command{
		Use:   "append [-c ID] [--role R] [TEXT...]",
		Short: "Append a message, or the records read on stdin, keeping the transcript valid",
		Long: `Append one message built from the arguments (each argument one content
string), or the records and messages read from stdin, one per line, applying
the transcript rules (alternating roles, user first, merges recorded) in one
transaction. Prints the records written or changed as JSONL.

Without -c, append is a pure transform: the transcript on stdin, the
transcript plus the new message on stdout.

Lines may be canonical records, bare messages ({"role":"user","contents":[...]}
or with "content"), or OpenAI-style chat messages. --timing and --aux apply to
every message appended.`,
		Example: `  convo append -c demo --role user "Hi there" "how are you?"
  convo append -c demo --role assistant --timing llmEnd=1744815823058 "Fine."
  jq -c '.messages[]' chat.json | convo append -c demo`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runAppend(cmd.Context(), &o, args)
		},
	}
	a.conversationFlag(cmd, &o.conversation, "conversation to append to (without it: transform stdin to stdout)")
	f := cmd.Flags()
	f.StringVar(&o.role, "role", "user", "role of the message built from TEXT: system, user, assistant, tool or summary")
	f.StringArrayVar(&o.timing, "timing", nil, "set metadata.timing KEY to MS (ms since the epoch, or now); repeatable")
	f.StringArrayVar(&o.aux, "aux", nil, "set metadata.aux KEY to a JSON value; repeatable")
	f.StringVar(&o.toolCallID, "tool-call-id", "", "with --role tool: the id of the call this result answers")
	f.StringVar(&o.name, "name", "", "with --role tool: the tool's name")
	f.BoolVar(&o.isError, "is-error", false, "with --role tool: the tool failed")
	f.IntVar(&o.summarizeIfOver, "summarize-if-over", 0, "after appending, summarize when the LLM view holds more tokens than this (a failure is reported, the append kept)")
	f.StringVar(&o.summarizer, "summarizer", "extractive", "with --summarize-if-over: extractive, gemini, openai, ollama, anthropic or exec")
	f.IntVar(&o.keepLast, "keep-last", 4, "with --summarize-if-over: turns kept verbatim")
	f.StringVar(&o.from, "from", "", "read a provider's response body on stdin as the assistant's answer: openai, anthropic, gemini, bedrock or ollama")
	f.BoolVar(&o.allowIncomplete, "allow-incomplete", false, "with --from: append an answer cut short (output limit, safety filter) instead of failing")
	return cmd
}

// metadataEdit is what --timing and --aux set, parsed once.
type metadataEdit struct {
	timing map[string]int64
	aux    map[string]json.RawMessage
}

// parseMetadataFlags reads --timing KEY=MS|now and --aux KEY=JSON. A
// malformed flag is a usage error; an unknown timing key is invalid input,
// as it is in a record.
func parseMetadataFlags(timing, aux []string, now int64) (*metadataEdit, error) {
	e := &metadataEdit{timing: map[string]int64{}, aux: map[string]json.RawMessage{}}
	for _, kv := range timing {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErrorf("--timing %q: want KEY=MS", kv)
		}
		var probe transcript.Timing
		if err := probe.Set(k, 0); err != nil {
			return nil, &transcript.InputError{Field: "--timing", Err: err}
		}
		ms, err := strconv.ParseInt(v, 10, 64)
		if v == "now" {
			ms, err = now, nil
		}
		if err != nil || ms < 0 {
			return nil, usageErrorf("--timing %s: want milliseconds since the epoch or now, got %q", k, v)
		}
		e.timing[k] = ms
	}
	for _, kv := range aux {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErrorf("--aux %q: want KEY=JSON", kv)
		}
		c, err := transcript.CompactJSON([]byte(v))
		if err != nil {
			return nil, usageErrorf("--aux %s: %v (quote strings: --aux %s='\"text\"')", k, err, k)
		}
		e.aux[k] = c
	}
	return e, nil
}

func (e *metadataEdit) apply(r *transcript.Record) {
	for k, v := range e.timing {
		_ = r.Metadata.Timing.Set(k, v)
	}
	if len(e.aux) > 0 && r.Metadata.Aux == nil {
		r.Metadata.Aux = map[string]json.RawMessage{}
	}
	for k, v := range e.aux {
		r.Metadata.Aux[k] = v
	}
}

func (a *Factory) runAppend(ctx context.Context, o *appendOptions, args []string) error {
	if o.from != "" {
		return a.runAppendFrom(ctx, o, args)
	}
	if o.conversation != "" {
		if err := checkConversationID(o.conversation); err != nil {
			return err
		}
	}
	edit, err := parseMetadataFlags(o.timing, o.aux, a.nowMillis())
	if err != nil {
		return err
	}
	var fromArgs *transcript.Record
	if len(args) > 0 {
		r, err := a.recordFromArgs(o, args)
		if err != nil {
			return err
		}
		edit.apply(&r)
		fromArgs = &r
	} else if o.role != "user" || o.toolCallID != "" || o.name != "" || o.isError {
		return usageErrorf("--role, --tool-call-id, --name and --is-error build a message from TEXT arguments; none given")
	}

	if o.conversation == "" {
		return a.appendTransform(fromArgs, edit)
	}

	var next func() (transcript.Record, error)
	switch {
	case fromArgs != nil:
		next = oneRecord(*fromArgs)
	case a.IO.StdinIsTerminal():
		return usageErrorf("nothing to append: give TEXT arguments or pipe records on stdin")
	default:
		dec := transcript.NewDecoder(a.IO.In)
		next = func() (transcript.Record, error) {
			r, err := dec.Next()
			if err == nil {
				edit.apply(&r)
			}
			return r, err
		}
	}
	return a.appendStored(ctx, o, next)
}

// oneRecord yields r, then io.EOF.
func oneRecord(r transcript.Record) func() (transcript.Record, error) {
	done := false
	return func() (transcript.Record, error) {
		if done {
			return transcript.Record{}, io.EOF
		}
		done = true
		return r, nil
	}
}

// appendStored appends what next yields to the stored conversation in one
// transaction, prints the records written or changed, then runs the
// --summarize-if-over policy, whose failure is reported but does not undo
// the append.
func (a *Factory) appendStored(ctx context.Context, o *appendOptions, next func() (transcript.Record, error)) error {
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	res, err := s.Append(ctx, o.conversation, a.IDs, next)
	if err != nil {
		return err
	}
	if res.Skipped > 0 {
		a.warnf("%d record(s) already stored, skipped", res.Skipped)
	}
	enc := transcript.NewEncoder(a.IO.Out)
	if !a.quiet && res.ToSeq > 0 {
		err = s.Read(ctx, o.conversation, store.ReadOptions{AfterSeq: res.FromSeq, UpToSeq: res.ToSeq}, func(r store.Row) error {
			return enc.WriteLine(r.Body)
		})
		if err != nil {
			return errors.Join(err, enc.Flush())
		}
	}
	if o.summarizeIfOver > 0 && res.ToSeq > 0 {
		a.autoSummarize(ctx, s, o, enc)
	}
	return enc.Flush()
}

// autoSummarize runs summarize --if-over after an append, as the reference
// memory service's strategy did.
func (a *Factory) autoSummarize(ctx context.Context, s *store.Store, o *appendOptions, enc *transcript.Encoder) {
	job, err := a.newSummaryJob(&summarizeOptions{
		keepLast: o.keepLast, ifOver: o.summarizeIfOver, tokenizer: tokens.Default,
		maxTokens: summarize.DefaultMaxSummaryTokens, ledgerSize: summarize.DefaultLedgerSize,
		provider: providerOptions{name: o.summarizer, model: a.cfg.GetString("model"), timeout: 2 * time.Minute},
	})
	if err == nil {
		var res outcome
		if res, err = a.summarizeOne(ctx, s, o.conversation, job); err == nil && res.summary != nil && !a.quiet {
			err = enc.Encode(res.summary)
		}
	}
	if err != nil {
		fmt.Fprintf(a.IO.ErrOut, "convo: the append is stored; summarizing after it failed: %s\n", errorMessage(err))
	}
}

func (a *Factory) recordFromArgs(o *appendOptions, args []string) (transcript.Record, error) {
	role := transcript.Role(o.role)
	if !role.Valid() {
		return transcript.Record{}, usageErrorf("--role %q: want system, user, assistant, tool or summary", o.role)
	}
	r := transcript.Record{Message: transcript.Message{
		Role: role, Contents: args, ToolCallID: o.toolCallID, Name: o.name, IsError: o.isError,
	}}
	if err := transcript.Validate(&r); err != nil {
		return r, &usageError{err}
	}
	return r, nil
}

// appendTransform is append without a store: stdin's transcript, then the
// new message, to stdout.
func (a *Factory) appendTransform(fromArgs *transcript.Record, edit *metadataEdit) error {
	enc := transcript.NewEncoder(a.IO.Out)
	rw := transcript.NewRewriter(enc, "", a.IDs, a.nowMillis)
	if !a.IO.StdinIsTerminal() {
		var apply func(*transcript.Record)
		if fromArgs == nil {
			apply = edit.apply
		}
		if err := rw.Copy(transcript.NewDecoder(a.IO.In), apply); err != nil {
			return err
		}
	}
	if fromArgs != nil {
		if err := rw.Add(*fromArgs); err != nil {
			return err
		}
	}
	return rw.Close()
}
