package cmd

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/internal/providers"
	"github.com/convo-cli/convo/pkg/ask"
	"github.com/convo-cli/convo/pkg/format"
)

// renderOptions are the flags of `convo render`.
type renderOptions struct {
	f                      *Factory
	conversation, provider string
	system, model          string
	tools                  string
	noSummary, lenient     bool
	full                   bool // the whole history, summaries ignored
	body                   bool
	maxTokens              int
	// temperature is a string so that "unset" differs from 0 whether it
	// comes from the command line, the environment or the config file.
	temperature string
	// anthropicVersion: the anthropic-version the body is written for.
	anthropicVersion string
	// contextManagement is --context-management: a strategy name, JSON or
	// @FILE.
	contextManagement string
	// req is the request the flags describe, built by check.
	req format.Request
}

// newCmdRender builds `convo render`. runF replaces renderRun in tests that
// check flag parsing alone.
func newCmdRender(f *Factory, runF func(context.Context, *renderOptions) error) *cobra.Command {
	o := &renderOptions{f: f}
	cmd := &cobra.Command{
		Use:   "render --provider P [-c ID]",
		Short: "Print the LLM-facing view as a provider's request payload",
		Long:  renderLong(),
		Example: `  convo render -c demo --provider openai
  convo render -c demo --provider anthropic --body --model claude-sonnet-4-5 |
    curl -s https://api.anthropic.com/v1/messages -H "x-api-key: $ANTHROPIC_API_KEY" \
      -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' -d @- |
    convo append -c demo --from anthropic
  convo get -c demo | convo render --provider gemini --system @prompt.txt
  convo render -c demo --provider openai --full | wc -c   # the history as if never summarized
  convo render -c demo --provider anthropic --body --model claude-sonnet-4-5 --context-management compact:150000 |
    curl -s https://api.anthropic.com/v1/messages -H "x-api-key: $ANTHROPIC_API_KEY" \
      -H 'anthropic-version: 2023-06-01' -H 'anthropic-beta: compact-2026-01-12' \
      -H 'content-type: application/json' -d @- |
    convo append -c demo --from anthropic   # keeps the compaction block, if one comes`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return renderRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to render (without it: the transcript on stdin)")
	fl := cmd.Flags()
	fl.StringVar(&o.provider, "provider", "", "request format: "+format.NameList(format.CanRender))
	fl.StringVar(&o.system, "system", "", "system prompt TEXT, or @FILE to read it from a file, instead of the stored one")
	fl.BoolVar(&o.noSummary, "no-summary", false, "leave the latest summary out of the system prompt; the records it covers stay out too")
	fl.BoolVar(&o.full, "full", false, "render the whole history, every record but the summaries, ignoring what they cover")
	fl.BoolVar(&o.lenient, "lenient", false, "drop results that answer no call and wrap non-object arguments instead of failing")
	fl.BoolVar(&o.body, "body", false, "print a whole request body (needs --model, except for gemini and bedrock)")
	fl.StringVar(&o.model, "model", "", "with --body: the model")
	fl.StringVar(&o.tools, "tools", "", `with --body: JSON FILE of the tools the model may call, as ask --tools takes it, written in the provider's form`)
	fl.IntVar(&o.maxTokens, "max-tokens", 0, "with --body: the output token limit (default: "+defaultLimits()+")")
	fl.StringVar(&o.temperature, "temperature", "", "with --body: "+temperatureHelp)
	anthropicVersionFlag(fl, &o.anthropicVersion)
	fl.StringVar(&o.contextManagement, "context-management", "", "with --body (anthropic, openai-responses): the provider-side context management to ask for: "+format.ContextStrategies+" as the body's value, or @FILE holding it")
	_ = cmd.RegisterFlagCompletionFunc("provider", cobra.FixedCompletions(format.Names(format.CanRender), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// renderLong is render's help: what the view is, and what each provider's
// form of it holds.
func renderLong() string {
	return `Print what the LLM is sent of a conversation (the records after the latest
summary, less system and summary records) as the request payload of provider
P: ` + format.NameList(format.CanRender) + `.

Without --body, only the system and messages fields are printed, as one JSON
object; with --body --model M, the whole request body. The system prompt is
the latest system record, or --system; the latest summary is added to it as a
labelled section. --no-summary leaves the summary out, and since the view
still starts after it, the records it covers stay out too: the model sees
neither. --full renders the whole history instead, every record but the
summaries, as if nothing had been summarized (to debug a summary, or to
compare what summarizing saves). Without -c, the transcript is read on
stdin and the transcript rules are applied to it first.

Content strings become one text part each where the provider's messages take
parts (anthropic, gemini, bedrock, vercel) and are joined by a blank line
where they take one string (openai, ollama, vercel-legacy, and the system
prompt of openai, openai-responses, ollama, vercel and vercel-legacy);
openai-responses takes one input_text part per user string, and an
assistant message as one string, or, when the Responses API gave it, whole
(its id, status and phase) with one output_text part per string.

Provider data a record keeps (OpenAI reasoning items, Anthropic thinking
blocks, Gemini parts with thought signatures) is sent to the provider that
gave it, in its place, and to no other.

A tool call that got no result before the next assistant record (an agent
interrupted: the user spoke first) or before the end of the view is sent
with the result "[no result: interrupted]", so that every provider takes the
payload; at the end of the view, stderr says so. A result without its call,
or arguments that are not a JSON object where the provider needs one, are
invalid input (exit 3, naming the record); --lenient repairs them and says
so on stderr.

--tools FILE (the file ask --tools takes) writes the tool definitions in the
provider's form (openai and ollama "tools" of functions, openai-responses
flat function tools, anthropic "tools" with input_schema, gemini
functionDeclarations, bedrock toolConfig, vercel {"name":{"description",
"inputSchema"}}, vercel-legacy "functions"), so that a body whose history
holds tool calls is one the provider takes. vercel's inputSchema is plain
JSON Schema: wrap each in the AI SDK's jsonSchema() before generateText
(examples/vercel-tools.mjs).

--body writes the output limit --max-tokens gives, or the provider's default
(` + defaultLimits() + `; none for the others, whose own default then
applies). Gemini and Bedrock take the model in the URL, not in the body.

An anthropic body is written for the API version ` + providers.DefaultAnthropicVersion() + `: send it with
the header anthropic-version: ` + providers.DefaultAnthropicVersion() + `. --anthropic-version V (env
CONVO_ANTHROPIC_VERSION) writes it for another:
  ` + providers.AnthropicVersions() + `
A version whose request has no temperature refuses --temperature (exit 2).
Whenever the payload needs a header beyond those (a history that opens with
an Anthropic compaction block needs anthropic-beta, as does
--context-management), stderr says so in one line per header, --quiet or
not: "convo: send with the header anthropic-beta: VALUES"
(sed -n 's/^convo: send with the header //p' gives the curl -H value).

--context-management (with --body; anthropic and openai-responses) asks the
provider to manage the context on its side: "compact" (threshold compaction,
compact:TOKENS its trigger), "clear-tool-uses" and "clear-thinking"
(Anthropic's context editing), "summarize" (Anthropic's on-demand
compaction), or the body's value as JSON (or @FILE). stderr names the
anthropic-beta header the body needs. A history opening with an on-demand
Anthropic compaction block (one that came alone) and a compact edit are exit
2: Anthropic takes no such block with a compaction edit (add
pause_after_compaction to the edit when the block came from a paused
threshold compaction). What comes back, a compaction block or
item, append --from keeps as a summary record, and render then sends it first
in place of what it covers.`
}

// headerLine starts the one stderr line render writes per HTTP header the
// payload needs (its history's compaction block, its context management),
// whenever there is one: "convo: send with the header anthropic-beta:
// V1,V2". A script takes the header with
// sed -n 's/^convo: send with the header //p'.
const headerLine = "send with the header "

// temperatureHelp is the help of --temperature, which goes to the
// provider as given.
const temperatureHelp = "sampling temperature (sent as given: some Anthropic models take only 1, e.g. with extended thinking, and answer any other with HTTP 400)"

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

// check refuses flag values that cannot work and builds o.req, checked
// against the registry: the providers it names, where the model goes.
func (o *renderOptions) check() error {
	o.req = format.Request{Provider: o.provider, NoSummary: o.noSummary, Lenient: o.lenient, Warn: o.f.warnf,
		Body: o.body, Model: o.model, MaxTokens: o.maxTokens, APIVersion: providers.APIVersion(o.provider, o.anthropicVersion),
		Header: func(name, value string) { o.f.alertf("%s%s: %s", headerLine, name, value) }}
	prov, ok := format.Lookup(o.provider)
	switch {
	case o.provider == "":
		return exitcode.Usagef("missing --provider (one of %s)", format.NameList(format.CanRender))
	case !ok || !prov.CanDo(format.CanRender):
		return exitcode.Usagef("--provider %q: want one of %s", o.provider, format.NameList(format.CanRender))
	case !o.body && (o.model != "" || o.maxTokens != 0 || o.temperature != "" || o.tools != "" || o.contextManagement != ""):
		return exitcode.Usagef("--model, --max-tokens, --temperature, --tools and --context-management shape a whole request body: add --body")
	case o.full && o.noSummary:
		return exitcode.Usagef("--full renders no summary already: drop --no-summary")
	case o.maxTokens < 0:
		return exitcode.Usagef("--max-tokens %d: want a positive number", o.maxTokens)
	case o.body && o.model == "" && !prov.ModelInURL:
		return exitcode.Usagef("--body needs --model for %s", o.provider)
	}
	if o.model != "" && prov.ModelInURL {
		o.f.warnf("%s takes the model in the URL, not in the body: --model %s is left out", o.provider, o.model)
	}
	var err error
	if o.req.Temperature, err = flagvalue.Temperature(o.temperature); err != nil {
		return err
	}
	if o.req.Tools, err = flagvalue.Tools(o.tools); err != nil {
		return err
	}
	if o.contextManagement != "" {
		v, err := flagvalue.TextOrFile("--context-management", o.contextManagement)
		if err != nil {
			return err
		}
		if o.req.ContextManagement, err = format.ParseContextManagement(o.provider, v); err != nil {
			return exitcode.Usagef("--context-management: %v", err)
		}
	}
	if err := o.req.Check(); err != nil {
		return exitcode.Usagef("--provider %s: %v", o.provider, err)
	}
	if err := flagvalue.ConversationID(o.conversation); err != nil {
		return err
	}
	if o.conversation == "" && o.f.IO.StdinIsTerminal() {
		return exitcode.Usagef("nothing to render: give -c or pipe a transcript on stdin")
	}
	return nil
}

// renderRun renders the stored view of -c, or the transcript on stdin.
func renderRun(ctx context.Context, o *renderOptions) error {
	f := o.f
	var err error
	if o.req.System, err = flagvalue.System(o.system); err != nil {
		return err
	}
	if o.full {
		var s ask.HistoryReader
		if o.conversation != "" {
			if s, err = f.ReadStore(ctx); err != nil {
				return err
			}
		}
		history := ask.FullHistory(ctx, s, o.conversation, f.IO.In, func(line int, msg string) { f.warnf("line %d: %s", line, msg) })
		defer history.Close()
		return format.RenderTranscript(f.IO.Out, o.req, history, f.IDs, f.nowMillis)
	}
	if o.conversation == "" {
		return format.RenderTranscript(f.IO.Out, o.req, f.IO.In, f.IDs, f.nowMillis)
	}
	s, err := f.ReadStore(ctx)
	if err != nil {
		return err
	}
	return ask.RenderView(ctx, s, o.conversation, f.IO.Out, o.req)
}
