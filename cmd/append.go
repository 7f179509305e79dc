package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/store"
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
}

func (a *App) newAppendCmd() *cobra.Command {
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
	f.StringVar(&o.from, "from", "", "read a provider's response body on stdin as the assistant's answer: openai, anthropic, gemini, bedrock or ollama")
	f.BoolVar(&o.allowIncomplete, "allow-incomplete", false, "with --from: append an answer cut short (output limit, safety filter) instead of failing")
	return cmd
}

// metadataEdit is what --timing and --aux set, parsed once.
type metadataEdit struct {
	timing map[string]int64
	aux    map[string]json.RawMessage
}

func parseMetadataFlags(timing, aux []string, now int64) (*metadataEdit, error) {
	e := &metadataEdit{timing: map[string]int64{}, aux: map[string]json.RawMessage{}}
	for _, kv := range timing {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usageErrorf("--timing %q: want KEY=MS", kv)
		}
		var probe transcript.Timing
		ms, err := strconv.ParseInt(v, 10, 64)
		if v == "now" {
			ms, err = now, nil
		}
		if err != nil || ms < 0 {
			return nil, usageErrorf("--timing %s: want milliseconds since the epoch or now, got %q", k, v)
		}
		if err := probe.Set(k, ms); err != nil {
			return nil, usageErrorf("--timing: %v", err)
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

func (a *App) runAppend(ctx context.Context, o *appendOptions, args []string) error {
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
		done := false
		next = func() (transcript.Record, error) {
			if done {
				return transcript.Record{}, io.EOF
			}
			done = true
			return *fromArgs, nil
		}
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
	if a.quiet || res.ToSeq == 0 {
		return nil
	}
	enc := transcript.NewEncoder(a.IO.Out)
	err = s.Read(ctx, o.conversation, store.ReadOptions{AfterSeq: res.FromSeq, UpToSeq: res.ToSeq}, func(r store.Row) error {
		return enc.WriteLine(r.Body)
	})
	return errors.Join(err, enc.Flush())
}

func (a *App) recordFromArgs(o *appendOptions, args []string) (transcript.Record, error) {
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
func (a *App) appendTransform(fromArgs *transcript.Record, edit *metadataEdit) error {
	enc := transcript.NewEncoder(a.IO.Out)
	rw := transcript.NewRewriter(enc, "", a.IDs, a.nowMillis)
	if !a.IO.StdinIsTerminal() {
		dec := transcript.NewDecoder(a.IO.In)
		for {
			r, err := dec.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if fromArgs == nil {
				edit.apply(&r)
			}
			if err := rw.Add(r); err != nil {
				return err
			}
		}
	}
	if fromArgs != nil {
		if err := rw.Add(*fromArgs); err != nil {
			return err
		}
	}
	return rw.Close()
}
