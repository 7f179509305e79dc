package cmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

type askOptions struct {
	conversation string
	provider     string
	model        string
	baseURL      string
	timeout      time.Duration
	system       string
	maxTokens    int
	temperature  string
	schema       string
	noSchema     bool
	setSchema    string
	unsetSchema  bool
	keepInvalid  bool
	tools        string
	keepRaw      string
	agent        string
	rate         string
	stream       bool
	json         bool
	lenient      bool
}

func (a *Factory) newAskCmd() *cobra.Command {
	var o askOptions
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
the reasons, and nothing is stored unless --keep-invalid. --set-schema FILE
stores a schema for the conversation that every later ask uses unless it
gives --schema or --no-schema; --unset-schema removes it. The schema must
be self-contained: no provider follows a $ref to another file.

An answer cut short or refused (output limit, safety or recitation filter,
content filter, refusal) is an error naming the provider's reason, exit 1;
nothing is stored.

--keep-raw DIR writes the response body of every answer received, stored or
not (cut short, invalid), to DIR/<conversation>/<agent>_<UTC time>.json (a
streamed answer as the body it would have had without streaming), never with
a key or header in it.

--rate N/PERIOD spaces the requests to one provider and model evenly, shared
by every convo process on the same store: requests wait, they never fail.
Failed requests are retried with backoff on 429, 5xx and timeouts, waiting
as long as a provider's Retry-After asks, up to a minute.

Keys and endpoints come from the environment or the config file:
` + providerEnvs() + `.
--provider ollama speaks Ollama's native /api/chat, as summarize
--summarizer ollama does.`,
		Example: `  convo ask -c demo --provider openai "What is the capital of France?"
  echo "Summarize our plan" | convo ask -c demo --provider gemini -
  convo ask -c demo --provider anthropic --schema answer.schema.json --json "List three cities"
  convo ask -c demo --set-schema answer.schema.json
  convo ask -c demo --provider ollama --model llama3.2 --stream "Tell me a story"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runAsk(cmd.Context(), &o, args)
		},
	}
	a.conversationFlag(cmd, &o.conversation, "conversation to continue (created on first use)")
	f := cmd.Flags()
	f.StringVar(&o.provider, "provider", "", format.NameList(format.CanCall))
	f.StringVar(&o.model, "model", "", "model name (default: the provider's default; ollama needs one)")
	f.StringVar(&o.baseURL, "base-url", "", "provider endpoint (default from "+baseURLEnvs()+")")
	f.DurationVar(&o.timeout, "timeout", llm.DefaultTimeout, "time limit of one provider request (with --stream: of the wait for each piece)")
	f.StringVar(&o.system, "system", "", "system prompt TEXT, or @FILE, instead of the stored one")
	f.IntVar(&o.maxTokens, "max-tokens", 0, "output token limit (default: "+defaultLimits()+"; the provider's own for the others)")
	f.StringVar(&o.temperature, "temperature", "", "sampling temperature")
	f.StringVar(&o.schema, "schema", "", "JSON Schema FILE the answer must match (this call only)")
	f.BoolVar(&o.noSchema, "no-schema", false, "ignore the conversation's stored schema for this call")
	f.StringVar(&o.setSchema, "set-schema", "", "store FILE as the conversation's schema, used by every later ask, and ask nothing")
	f.BoolVar(&o.unsetSchema, "unset-schema", false, "remove the conversation's stored schema, and ask nothing")
	f.BoolVar(&o.keepInvalid, "keep-invalid", false, "store an answer that does not match the schema anyway (still exit 3)")
	f.StringVar(&o.tools, "tools", "", `JSON FILE of the tools the model may call: [{"name","description","parameters"}] (OpenAI's {"type":"function","function":{...}} too)`)
	f.StringVar(&o.keepRaw, "keep-raw", "", "write each raw response body under DIR/<conversation>/")
	f.StringVar(&o.agent, "agent", "", "name of the raw response files (default: PROVIDER-MODEL)")
	f.StringVar(&o.rate, "rate", "", "at most N requests per PERIOD to this provider and model, e.g. 10/1s or 60/m, across processes (delayed, never failed)")
	f.BoolVar(&o.stream, "stream", false, "print the answer's text as it arrives (stored the same); with --json on stderr")
	f.BoolVar(&o.json, "json", false, "print the answer record as JSON instead of its text")
	f.BoolVar(&o.lenient, "lenient", false, "repair unmatched tool calls and results in the history instead of failing")
	_ = cmd.RegisterFlagCompletionFunc("provider", cobra.FixedCompletions(format.Names(format.CanCall), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// askSchema is the answer schema of one call.
type askSchema struct {
	name   string
	body   []byte
	schema *jsonschema.Schema
}

func (a *Factory) runAsk(ctx context.Context, o *askOptions, args []string) error {
	if err := requireConversation(o.conversation); err != nil {
		return err
	}
	if o.setSchema != "" || o.unsetSchema {
		return a.askSchemaOnly(ctx, o, args)
	}
	prov, known := format.Lookup(o.provider)
	switch {
	case o.provider == "":
		return usageErrorf("missing --provider (one of %s)", format.NameList(format.CanCall))
	case !known || !prov.CanDo(format.CanCall):
		return usageErrorf("--provider %q: want one of %s", o.provider, format.NameList(format.CanCall))
	case o.schema != "" && o.noSchema:
		return usageErrorf("--schema and --no-schema do not go together")
	case o.keepInvalid && o.noSchema:
		return usageErrorf("--keep-invalid needs a schema")
	case o.maxTokens < 0:
		return usageErrorf("--max-tokens %d: want a positive number", o.maxTokens)
	case o.timeout <= 0:
		return usageErrorf("--timeout %s: want a positive duration", o.timeout)
	}
	var temperature *float64
	if o.temperature != "" {
		t, err := strconv.ParseFloat(o.temperature, 64)
		if err != nil || t < 0 {
			return usageErrorf("--temperature %q: want a number of 0 or more", o.temperature)
		}
		temperature = &t
	}
	limiter, err := parseRate(o.rate)
	if err != nil {
		return err
	}
	contents, err := a.askContents(args)
	if err != nil {
		return err
	}
	var tools []format.Tool
	if o.tools != "" {
		if tools, err = readTools(o.tools); err != nil {
			return err
		}
	}
	var system []string
	if o.system != "" {
		text := o.system
		if name, ok := strings.CutPrefix(text, "@"); ok {
			b, err := os.ReadFile(name)
			if err != nil {
				return usageErrorf("--system: %v", err)
			}
			text = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		}
		system = []string{text}
	}
	model := cmp.Or(o.model, prov.DefaultModel)
	if model == "" {
		return usageErrorf("--provider %s needs --model", o.provider)
	}
	agent := o.agent
	if agent == "" {
		agent = o.provider + "-" + model
	}

	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	sch, err := a.askSchemaFor(ctx, s, o)
	if err != nil {
		return err
	}

	// The call's first attempt starts after the rate limiter let it go.
	var llmStart int64
	limit := func(ctx context.Context) error {
		if limiter != nil {
			interval := time.Duration(float64(time.Second) / float64(limiter.Limit()))
			if err := s.WaitRate(ctx, o.provider+"/"+model, interval); err != nil {
				return err
			}
		}
		if llmStart == 0 {
			llmStart = a.nowMillis()
		}
		return nil
	}
	transport, err := a.newTransport(o.provider, o.baseURL, o.timeout, limit)
	if err != nil {
		return err
	}

	now := a.nowMillis()
	var user *transcript.Record
	if contents != nil {
		user = &transcript.Record{
			ID:           a.IDs.New(now),
			Conversation: o.conversation,
			Message:      transcript.Message{Role: transcript.RoleUser, Contents: contents},
			Metadata:     transcript.Metadata{Timing: transcript.Timing{Creation: now}},
		}
	}
	req := format.Request{
		Provider: o.provider, System: system, Lenient: o.lenient, Warn: a.warnf,
		Body: true, Model: model, MaxTokens: o.maxTokens, Temperature: temperature, Stream: o.stream, Tools: tools,
	}
	if sch != nil {
		req.Schema, req.SchemaName = sch.body, sch.name
	}
	if err := req.Check(); err != nil {
		return usageErrorf("%v", err)
	}
	body, err := a.askBody(ctx, s, o, user, req)
	if err != nil {
		return err
	}

	x := llm.Call{Model: model, Body: body}
	var streamed bool
	var streamEnd byte
	streamOut := a.IO.Out
	if o.json {
		streamOut = a.IO.ErrOut // stdout is the record's
	}
	if o.stream {
		x.OnText = func(text string) {
			streamed = true
			streamEnd = text[len(text)-1]
			io.WriteString(streamOut, text)
		}
	}
	reply, err := transport.Send(ctx, x)
	llmEnd := a.nowMillis()
	if streamed && streamEnd != '\n' {
		io.WriteString(streamOut, "\n")
	}
	if err != nil {
		return fmt.Errorf("%w; nothing was stored", err)
	}
	if llmStart == 0 {
		llmStart = now
	}
	if o.keepRaw != "" {
		if err := writeRaw(o.keepRaw, o.conversation, agent, a.Now(), reply.Body); err != nil {
			return fmt.Errorf("--keep-raw: %w; nothing was stored", err)
		}
	}

	ans, err := a.askAnswer(o.provider, reply.Body, now)
	if err != nil {
		return err
	}
	ans.ID = a.IDs.New(llmEnd)
	ans.Conversation = o.conversation
	ans.Metadata.Timing.Creation = llmEnd
	timed := user
	if timed == nil {
		timed = &ans
	}
	_ = timed.Metadata.Timing.Set("llmStart", llmStart)
	_ = timed.Metadata.Timing.Set("llmEnd", llmEnd)

	var invalid error
	if sch != nil {
		if ans.Metadata.Aux == nil {
			ans.Metadata.Aux = map[string]json.RawMessage{}
		}
		ans.Metadata.Aux["schema"] = transcript.AppendString(nil, sch.name)
		if invalid = sch.check(&ans); invalid != nil && !o.keepInvalid {
			return fmt.Errorf("%w\nnothing was stored (--keep-invalid stores it anyway)", invalid)
		}
	}

	var recs []transcript.Record
	if user != nil {
		recs = append(recs, *user)
	}
	recs = append(recs, ans)
	if _, err := s.Append(ctx, o.conversation, a.IDs, sliceRecords(recs)); err != nil {
		return err
	}
	a.logger().Info("asked", "conversation", o.conversation, "provider", o.provider, "model", model,
		"answer", ans.ID, "tool_calls", len(ans.Message.ToolCalls), "ms", llmEnd-llmStart, "streamed", o.stream)
	if err := a.printAnswer(o, &ans, streamed); err != nil {
		return err
	}
	if invalid != nil {
		return fmt.Errorf("%w\nstored anyway (--keep-invalid)", invalid)
	}
	return nil
}

// askContents reads the new user message: the arguments, or stdin with -.
// nil means none: the stored conversation is answered as it stands.
func (a *Factory) askContents(args []string) ([]string, error) {
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(a.IO.In, transcript.MaxLineBytes+1))
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		if len(b) > transcript.MaxLineBytes {
			return nil, &transcript.InputError{Err: fmt.Errorf("the message on stdin is over %d bytes", transcript.MaxLineBytes)}
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if strings.TrimSpace(text) == "" {
			return nil, &transcript.InputError{Err: errors.New("the message on stdin is empty")}
		}
		if strings.IndexByte(text, 0) >= 0 {
			return nil, &transcript.InputError{Err: errors.New("the message on stdin contains a NUL character")}
		}
		return []string{text}, nil
	}
	for i, arg := range args {
		if arg == "-" {
			return nil, usageErrorf("- (read stdin) goes alone, without TEXT arguments")
		}
		if strings.IndexByte(arg, 0) >= 0 {
			return nil, usageErrorf("argument %d contains a NUL character", i+1)
		}
	}
	if len(args) == 0 {
		return nil, nil
	}
	return slices.Clone(args), nil
}

// askBody renders the request body in one pass: the settings, tools and
// schema of opt, the stored view (system prompt, latest summary, the
// records after it) and the new user message.
func (a *Factory) askBody(ctx context.Context, s *store.Store, o *askOptions, user *transcript.Record, opt format.Request) ([]byte, error) {
	if opt.System == nil {
		raw, err := s.LatestSystem(ctx, o.conversation)
		if err != nil {
			return nil, err
		}
		if raw != nil {
			var sys transcript.Record
			if err := json.Unmarshal(raw, &sys); err != nil {
				return nil, fmt.Errorf("stored system record is corrupt: %w", err)
			}
			opt.System = sys.Message.Contents
		}
	}
	var buf bytes.Buffer
	r, err := format.NewRenderer(&buf, opt)
	if err != nil {
		return nil, err
	}
	last := transcript.Role("")
	err = s.Read(ctx, o.conversation, store.ReadOptions{FromLatestSummary: true}, func(row store.Row) error {
		if role := transcript.Role(row.Role); role != transcript.RoleSystem && role != transcript.RoleSummary {
			last = role
		}
		return r.AddJSON(row.Body)
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if user != nil {
		if err := r.Add(user); err != nil {
			return nil, err
		}
	} else if last != transcript.RoleUser && last != transcript.RoleTool {
		if last == "" {
			return nil, usageErrorf("nothing to ask: conversation %q has no message to answer; give TEXT or - to read it on stdin", o.conversation)
		}
		return nil, usageErrorf("nothing to ask: conversation %q ends with an answer; give TEXT or - to read it on stdin", o.conversation)
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// askAnswer reads the response body into the answer record. A body that is
// not the provider's answer is a provider failure here (exit 1), not bad
// input: the user did not write it (format.ParseReply).
func (a *Factory) askAnswer(provider string, body []byte, now int64) (transcript.Record, error) {
	newID := func() string { return "call_" + a.IDs.New(now) }
	ans, err := format.ParseReply(provider, body, newID)
	var inc *format.IncompleteError
	switch {
	case errors.As(err, &inc):
		return transcript.Record{}, fmt.Errorf("%s answer incomplete: %s; nothing was stored", provider, inc.Detail())
	case err != nil:
		return transcript.Record{}, fmt.Errorf("%w; nothing was stored", err)
	}
	rec := ans.Record
	format.UnwrapAnswer(provider, &rec)
	return rec, nil
}

// askSchemaFor returns the answer schema of the call: --schema, else the
// conversation's stored one unless --no-schema, else none.
func (a *Factory) askSchemaFor(ctx context.Context, s *store.Store, o *askOptions) (*askSchema, error) {
	switch {
	case o.noSchema:
		return nil, nil
	case o.schema != "":
		return loadSchemaFile("--schema", o.schema)
	}
	stored, ok, err := s.Schema(ctx, o.conversation)
	if err != nil || !ok {
		return nil, err
	}
	sch, err := compileSchema(stored.Name, stored.Body)
	if err != nil {
		return nil, fmt.Errorf("stored schema of %q: %w (replace it with --set-schema)", o.conversation, err)
	}
	return sch, nil
}

func loadSchemaFile(flag, path string) (*askSchema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("%s: %v", flag, err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	name = strings.TrimSuffix(name, ".schema")
	sch, err := compileSchema(name, b)
	if err != nil {
		return nil, usageErrorf("%s %s: %v", flag, path, err)
	}
	return sch, nil
}

// compileSchema checks a schema document (JSON Schema 2020-12 unless its
// $schema says otherwise) and compiles it. Nothing is loaded from elsewhere:
// the providers see only this document.
func compileSchema(name string, body []byte) (*askSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON Schema object")
	}
	if t, ok := obj["title"].(string); ok && t != "" {
		name = t
	}
	const loc = "urn:convo:answer-schema"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	compiled, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("not a valid JSON Schema: %w", err)
	}
	return &askSchema{name: format.SchemaNameOf(name), body: body, schema: compiled}, nil
}

// check validates the answer's text against the schema. An answer made of
// tool calls alone is not checked: the structured answer comes after the
// tools have run.
func (sc *askSchema) check(rec *transcript.Record) error {
	text := strings.TrimSpace(strings.Join(rec.Message.Contents, ""))
	if text == "" && len(rec.Message.ToolCalls) > 0 {
		return nil
	}
	text = stripFence(text)
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return &transcript.InputError{Field: "answer", Err: fmt.Errorf("not JSON, so it does not match the schema %s: %v", sc.name, err)}
	}
	if err := sc.schema.Validate(v); err != nil {
		msg := err.Error()
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			// The first line names the schema's internal URL; the rest are
			// the reasons, one per line.
			if _, rest, ok := strings.Cut(msg, "\n"); ok {
				msg = rest
			}
		}
		return &transcript.InputError{Field: "answer", Err: fmt.Errorf("does not match the schema %s:\n%s", sc.name, msg)}
	}
	return nil
}

// stripFence removes a Markdown code fence around a JSON answer, which some
// local models add whatever they are asked.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := strings.TrimSuffix(s, "```")
	if _, body, ok := strings.Cut(inner, "\n"); ok {
		return strings.TrimSpace(body)
	}
	return s
}

// askSchemaOnly is --set-schema FILE and --unset-schema: the conversation's
// stored schema changes, nothing is asked.
func (a *Factory) askSchemaOnly(ctx context.Context, o *askOptions, args []string) error {
	switch {
	case o.setSchema != "" && o.unsetSchema:
		return usageErrorf("--set-schema and --unset-schema do not go together")
	case len(args) > 0 || o.schema != "" || o.noSchema:
		return usageErrorf("--set-schema and --unset-schema change the stored schema and ask nothing: ask in another call")
	}
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	if o.unsetSchema {
		had, err := s.DeleteSchema(ctx, o.conversation)
		if err == nil && !had {
			a.warnf("conversation %q had no schema", o.conversation)
		}
		return err
	}
	sch, err := loadSchemaFile("--set-schema", o.setSchema)
	if err != nil {
		return err
	}
	return s.SetSchema(ctx, o.conversation, store.ConversationSchema{Name: sch.name, Body: sch.body})
}

// readTools reads --tools (the forms format.ParseTools takes).
func readTools(path string) ([]format.Tool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("--tools: %v", err)
	}
	tools, err := format.ParseTools(b)
	if err != nil {
		return nil, usageErrorf("--tools %s: %v", path, err)
	}
	return tools, nil
}

// writeRaw keeps one response body as DIR/<conversation>/<agent>_<time>.json.
// The body never holds the key (the client redacts it) and no header is
// written. Both names are escaped to stay one path element each; files are
// private to the user, as the conversation is.
func writeRaw(dir, conv, agent string, now time.Time, body []byte) error {
	sub := filepath.Join(dir, pathElement(conv))
	if err := os.MkdirAll(sub, 0o700); err != nil {
		return err
	}
	base := pathElement(agent) + "_" + now.UTC().Format("20060102T150405.000Z")
	for i := 0; ; i++ {
		name := base
		if i > 0 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(filepath.Join(sub, name+".json"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.Write(body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}

// pathElement escapes s into one safe file name: no separator, no . or ..
func pathElement(s string) string {
	e := url.PathEscape(s)
	e = strings.ReplaceAll(e, "\\", "%5C")
	e = strings.ReplaceAll(e, ":", "%3A")
	if strings.Trim(e, ".") == "" {
		e = strings.ReplaceAll(e, ".", "%2E")
	}
	return e
}

// printAnswer prints the answer's text (unless it was streamed) or, with
// --json, its record; tool calls are noted on stderr.
func (a *Factory) printAnswer(o *askOptions, ans *transcript.Record, streamed bool) error {
	if o.json {
		if a.quiet {
			return nil
		}
		enc := transcript.NewEncoder(a.IO.Out)
		return errors.Join(enc.Encode(ans), enc.Flush())
	}
	if !streamed {
		if text := strings.Join(ans.Message.Contents, "\n\n"); text != "" {
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			if _, err := io.WriteString(a.IO.Out, text); err != nil {
				return err
			}
		}
	}
	for _, c := range ans.Message.ToolCalls {
		a.warnf("tool call %s: %s %s", c.ID, c.Name, c.Arguments)
	}
	return nil
}

// sliceRecords yields recs, then io.EOF.
func sliceRecords(recs []transcript.Record) func() (transcript.Record, error) {
	i := 0
	return func() (transcript.Record, error) {
		if i == len(recs) {
			return transcript.Record{}, io.EOF
		}
		i++
		return recs[i-1], nil
	}
}
