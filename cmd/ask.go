package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/providers"
	"github.com/convo-cli/convo/internal/signals"
	"github.com/convo-cli/convo/pkg/ask"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
)

// askOptions are the flags of `convo ask`.
type askOptions struct {
	f                                      *Factory
	conversation, provider, model, baseURL string
	system, temperature, schema, tools     string
	anthropicVersion                       string
	keepRaw, agent, rate                   string
	timeout                                time.Duration
	maxTokens                              int
	noSchema, keepInvalid, stream, json    bool
	lenient                                bool
	args                                   []string
	// Checked and parsed by check.
	temp *float64
	pace time.Duration // --rate: the interval between requests
	// The hidden aliases of `convo schema set|unset` (one release).
	setSchema   string
	unsetSchema bool
}

// newCmdAsk builds `convo ask`. runF replaces askRun in tests that check
// flag parsing alone.
func newCmdAsk(f *Factory, runF func(context.Context, *askOptions) error) *cobra.Command {
	o := &askOptions{f: f}
	cmd := &cobra.Command{
		Use:   "ask -c ID --provider P [TEXT...|-]",
		Short: "One LLM turn: send the conversation and a new message, store both with the answer",
		Long: `Send the conversation's LLM view (its system prompt, latest summary and the
records after it) with a new user message to a provider, and store the user
message and the answer together, in one transaction, once the answer has
arrived: a failed call leaves the conversation exactly as it was.

The message is the arguments, one content string each, or stdin with -.
Without either, the stored conversation is answered as it stands, which must
end with a user message or tool results (say after 'convo append' of the
results of the tool calls an earlier answer made).

Prints the answer's text (--json: the answer record). Its tool calls, if
any, are noted on stderr: use --json to read them. The answer record keeps
under aux the provider, model, response id, finish reason and token usage;
the user record gets timing.llmStart and llmEnd (the answer record, when
there is no new user message).

--schema FILE (JSON Schema 2020-12) asks for a structured answer, given to
the provider in its own form (openai response_format, anthropic a forced
tool, gemini responseJsonSchema, ollama format), and checks the answer
against it: an answer that is not JSON or does not match is exit 3, with
the reasons, and nothing is stored unless --keep-invalid. 'convo schema set'
stores a schema for the conversation that every later ask uses unless it
gives --schema or --no-schema. The schema must be self-contained: no
provider follows a $ref to another file.

--temperature is sent as given: some Anthropic models take only 1 (extended
thinking, for one), and the provider's refusal (HTTP 400) is reported as it
said it, exit 1, nothing stored.

An answer cut short or refused (output limit, safety or recitation filter,
content filter, refusal) is an error naming the provider's reason, exit 1;
nothing is stored.

--keep-raw DIR writes the response body of every answer received, stored or
not (cut short, invalid), to DIR/<conversation>/<agent>_<UTC time>.json (a
streamed answer as the body it would have had without streaming), never with
a key or header in it. Names are escaped to one file name each, and one too
long for a file system is cut and ends in ~ and a hash of the whole. A body
that cannot be written is reported on stderr; the answer is stored anyway.

--rate N/PERIOD spaces the requests to one provider and model evenly, shared
by every convo process on the same store: requests wait, they never fail.
Failed requests are retried with backoff on 429, 5xx and timeouts, waiting
as long as a provider's Retry-After asks, up to a minute.

Keys and endpoints come from the environment or the config file:
` + providers.Envs() + `.
--provider ollama speaks Ollama's native /api/chat, as summarize
--summarizer ollama does.`,
		Example: `  convo ask -c demo --provider openai "What is the capital of France?"
  echo "Summarize our plan" | convo ask -c demo --provider gemini -
  convo ask -c demo --provider anthropic --schema answer.schema.json --json "List three cities"
  convo ask -c demo --provider ollama --model llama3.2 --stream "Tell me a story"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			if o.setSchema != "" || o.unsetSchema {
				return o.schemaAlias(cmd.Context())
			}
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return askRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to continue (created on first use)")
	fl := cmd.Flags()
	fl.StringVar(&o.provider, "provider", "", format.NameList(format.CanCall))
	fl.StringVar(&o.model, "model", "", "model name (default: the provider's default; ollama needs one)")
	fl.StringVar(&o.baseURL, "base-url", "", "provider endpoint (default from "+providers.BaseURLEnvs()+")")
	fl.DurationVar(&o.timeout, "timeout", llm.DefaultTimeout, "time limit of one provider request (with --stream: of the wait for each piece)")
	fl.StringVar(&o.system, "system", "", "system prompt TEXT, or @FILE, instead of the stored one")
	fl.IntVar(&o.maxTokens, "max-tokens", 0, "output token limit (default: "+defaultLimits()+"; the provider's own for the others)")
	fl.StringVar(&o.temperature, "temperature", "", temperatureHelp)
	anthropicVersionFlag(fl, &o.anthropicVersion)
	fl.StringVar(&o.schema, "schema", "", "JSON Schema FILE the answer must match (this call only)")
	fl.BoolVar(&o.noSchema, "no-schema", false, "ignore the conversation's stored schema for this call")
	fl.BoolVar(&o.keepInvalid, "keep-invalid", false, "store an answer that does not match the schema anyway (still exit 3)")
	fl.StringVar(&o.tools, "tools", "", `JSON FILE of the tools the model may call: [{"name","description","parameters"}] (OpenAI's {"type":"function","function":{...}} too)`)
	fl.StringVar(&o.keepRaw, "keep-raw", "", "write each raw response body under DIR/<conversation>/")
	fl.StringVar(&o.agent, "agent", "", "name of the raw response files (default: PROVIDER-MODEL)")
	fl.StringVar(&o.rate, "rate", "", "at most N requests per PERIOD to this provider and model, e.g. 10/1s or 60/m, across processes (delayed, never failed)")
	fl.BoolVar(&o.stream, "stream", false, "print the answer's text as it arrives (stored the same); with --json on stderr")
	fl.BoolVar(&o.json, "json", false, "print the answer record as JSON instead of its text")
	fl.BoolVar(&o.lenient, "lenient", false, "drop results in the history that answer no call and wrap non-object arguments instead of failing")
	fl.StringVar(&o.setSchema, "set-schema", "", "convo schema set (deprecated alias)")
	fl.BoolVar(&o.unsetSchema, "unset-schema", false, "convo schema unset (deprecated alias)")
	_ = fl.MarkHidden("set-schema")
	_ = fl.MarkHidden("unset-schema")
	_ = cmd.RegisterFlagCompletionFunc("provider", cobra.FixedCompletions(format.Names(format.CanCall), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// check refuses flag values that cannot work, before anything is read or
// opened, and resolves the model.
func (o *askOptions) check() error {
	if err := flagvalue.Conversation(o.conversation); err != nil {
		return err
	}
	prov, known := format.Lookup(o.provider)
	switch {
	case o.provider == "":
		return exitcode.Usagef("missing --provider (one of %s)", format.NameList(format.CanCall))
	case !known || !prov.CanDo(format.CanCall):
		return exitcode.Usagef("--provider %q: want one of %s", o.provider, format.NameList(format.CanCall))
	case o.schema != "" && o.noSchema:
		return exitcode.Usagef("--schema and --no-schema do not go together")
	case o.keepInvalid && o.noSchema:
		return exitcode.Usagef("--keep-invalid needs a schema")
	case o.maxTokens < 0:
		return exitcode.Usagef("--max-tokens %d: want a positive number", o.maxTokens)
	case o.timeout <= 0:
		return exitcode.Usagef("--timeout %s: want a positive duration", o.timeout)
	}
	if o.model = cmp.Or(o.model, prov.DefaultModel); o.model == "" {
		return exitcode.Usagef("--provider %s needs --model", o.provider)
	}
	var err error
	if o.temp, err = flagvalue.Temperature(o.temperature); err != nil {
		return err
	}
	// The API version and what its request takes (no temperature).
	req := format.Request{Provider: o.provider, Temperature: o.temp, APIVersion: providers.APIVersion(o.provider, o.anthropicVersion)}
	if err := req.Check(); err != nil {
		return exitcode.Usagef("--provider %s: %v", o.provider, err)
	}
	if o.pace, err = flagvalue.Rate(o.rate); err != nil {
		return err
	}
	for i, arg := range o.args {
		switch {
		case arg == "-" && len(o.args) > 1:
			return exitcode.Usagef("- (read stdin) goes alone, without TEXT arguments")
		case strings.IndexByte(arg, 0) >= 0:
			return exitcode.Usagef("argument %d contains a NUL character", i+1)
		}
	}
	return nil
}

// turn is the question the flags, the files they name and stdin ask.
func (o *askOptions) turn() (ask.Turn, error) {
	f := o.f
	turn := ask.Turn{
		Conversation: o.conversation, NoSchema: o.noSchema, KeepInvalid: o.keepInvalid,
		Rate: o.pace, KeepRaw: o.keepRaw, Agent: o.agent,
		Request: format.Request{Provider: o.provider, Model: o.model, MaxTokens: o.maxTokens,
			Temperature: o.temp, APIVersion: providers.APIVersion(o.provider, o.anthropicVersion), Lenient: o.lenient, Warn: f.warnf},
	}
	var err error
	// None answers the stored conversation as it stands.
	if turn.Contents, err = flagvalue.Texts(f.IO.In, o.args); err != nil {
		return turn, err
	}
	if turn.Request.Tools, err = flagvalue.Tools(o.tools); err != nil {
		return turn, err
	}
	if turn.Request.System, err = flagvalue.System(o.system); err != nil {
		return turn, err
	}
	if o.schema != "" {
		if turn.Schema, err = flagvalue.Schema("--schema", o.schema); err != nil {
			return turn, err
		}
	}
	return turn, nil
}

// askRun reads the inputs the flags name, asks through the provider's
// transport, and prints the answer.
func askRun(ctx context.Context, o *askOptions) error {
	f := o.f
	turn, err := o.turn()
	if err != nil {
		return err
	}
	s, err := f.Store(ctx)
	if err != nil {
		return err
	}
	t, err := f.providers().Transport(o.provider, o.baseURL, providers.APIVersion(o.provider, o.anthropicVersion), o.timeout, ask.Limit)
	if err != nil {
		return err
	}
	p := &ask.Printer{Out: f.IO.Out, ErrOut: f.IO.ErrOut, JSON: o.json, Quiet: f.quiet, Warn: f.warnf}
	if o.stream {
		turn.OnText = p.Text
	}
	res, err := (&ask.Asker{IDs: f.IDs, Now: f.Now, Guard: f.secrets.Guard}).Run(ctx, s, t, turn)
	p.EndText()
	if res.RawErr != nil {
		// Reported, not failed: the answer is stored, and a retry would
		// pay for it, and store it, twice.
		fmt.Fprintf(f.IO.ErrOut, "convo: %s\n", exitcode.Message(res.RawErr))
	}
	var re *ask.RequestError
	if errors.As(err, &re) {
		return &exitcode.UsageError{Err: err}
	}
	if err != nil {
		return err
	}
	// The turn is stored: from here on a failure loses only its report.
	signals.NoteStored(ctx, "storing the question and its answer")
	f.logger().Info("asked", "conversation", o.conversation, "provider", o.provider, "model", o.model, "answer", res.Answer.ID,
		"tool_calls", len(res.Answer.Message.ToolCalls), "ms", res.LLMEnd-res.LLMStart, "streamed", o.stream)
	outErr := p.Answer(&res.Answer)
	liveSpans(ctx, f, res.User, &res.Answer)
	if res.Invalid != nil {
		// Exit 3 stands: the answer does not match; the output is second.
		return errors.Join(fmt.Errorf("%w\nstored anyway (--keep-invalid)", res.Invalid), outErr)
	}
	return exitcode.AfterCommit(outErr)
}
