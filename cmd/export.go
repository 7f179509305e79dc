package cmd

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/internal/flagvalue"
	"github.com/convo-cli/convo/pkg/dynamo"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/otel"
	"github.com/convo-cli/convo/pkg/store"
)

// exportOptions are the flags of `convo export`.
type exportOptions struct {
	f                             *Factory
	conversation                  string
	all, incremental, excludeLast bool
	ack                           bool       // --ack: a token instead of a cursor move
	commit                        *ackCommit // --commit-cursor TOKEN, parsed
	sink, table                   string
	format                        export.Format
	dynamoTable, endpointURL      string         // --to dynamodb://dynamoTable
	file                          string         // --to file://file
	otlp                          *otel.Endpoint // --to otlp+http://...
	otelContent                   bool           // --otel-content
}

// newCmdExport builds `convo export`. runF replaces exportRun in tests that
// check flag parsing alone.
func newCmdExport(f *Factory, runF func(context.Context, *exportOptions) error) *cobra.Command {
	o := &exportOptions{f: f}
	var format, to, commit string
	cmd := &cobra.Command{
		Use:   "export -c ID | --all [--incremental [--sink NAME] [--ack]] [--exclude-last] [--format F] [--otel-content] [--to file://PATH | dynamodb://TABLE | otlp+http://HOST:PORT] | --commit-cursor TOKEN",
		Short: "Print records as the log a NoSQL store keeps, or write them to DynamoDB",
		Long: `Print the records of a conversation (-c) or of every conversation (--all) as
the log a NoSQL store keeps, or write them to DynamoDB (--to).

Formats: jsonl (canonical records, the default), json (one array), markdown
(for people), dynamodb (one {"Item":{...}} a line, as DynamoDB's import from
S3 reads it) and dynamodb-batch --table T (BatchWriteItem request bodies of
at most 25 items, for aws dynamodb batch-write-item --request-items).
Items have the partition key conversation (S) and the sort key id (S); JSON
values map to S, N (exact decimal text), BOOL, NULL, L and M. A record over
DynamoDB's 400 KB item limit is an error that names it. otel prints
OpenTelemetry spans (GenAI conventions) as OTLP/JSON requests, one a line: a
trace per conversation, a span per provider turn, tool result and summary,
the same ids on every export; texts only with --otel-content. --to
otlp+http://HOST:PORT (or https, or otlp for OTEL_EXPORTER_OTLP_ENDPOINT)
POSTs them to an OTLP receiver, moving each cursor once the receiver
accepted the batch (docs/export.md).

--incremental sends only what was written or changed since the last
incremental export to the same --sink (default "default"): a record merged
after it was sent is sent again, whole, with the same id, so a consumer that
upserts by id loses nothing and duplicates nothing. --exclude-last holds back
the last record of each conversation, which may still be merged; a later
export sends it. Without --incremental, export sends everything and moves no
cursor. Run one export at a time per sink: a second one fails at the end.

Delivery is at least once to a file or DynamoDB, the recommended sinks: the
cursor moves only once the output is safe. --to file://PATH appends to PATH,
a regular file (created 0600; a symbolic link is not followed), syncs it to
disk, then moves the cursor; --to dynamodb://TABLE moves it once the server
accepted every item. An export that fails or is interrupted moves nothing,
and the next one sends it all again. A torn last line an interrupted export
of this store left in PATH is cut off first, so no record is glued onto it;
a file that does not end in a newline for any other reason is refused.

A pipe cannot prove delivery. On stdout the cursor moves once the reader has
read every byte and is still there; one that quits early (head -1) moves
nothing, and export exits 141 saying so. But a reader that read everything
and then fails has lost it. With --ack the cursor does not move: export
prints on stderr a command with a token, and the consumer, once it holds the
records, runs it: convo export --commit-cursor TOKEN. That moves the cursor
to where this export left off, only forward: committing twice, or a token
older than the cursor, changes nothing.

Without -c or --all, export is a pure transform of the transcript on stdin.`,
		Example: `  convo export -c demo --format markdown
  convo export --all --incremental --exclude-last >> log.jsonl
  convo export --all --incremental --sink s3 --format dynamodb | gzip > part.json.gz
  convo export --all --incremental --exclude-last --to file:///var/log/convo.jsonl
  convo export --all --incremental --sink up --ack 2>ack | upload &&
    convo export --commit-cursor "$(sed -n 's/.*--commit-cursor //p' ack)"
  convo export -c demo --incremental --to dynamodb://convo --endpoint-url http://localhost:8000
  convo export --all --incremental --to otlp+http://localhost:4318`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.parse(cmd.Flags().Changed, format, to, commit); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return exportRun(cmd.Context(), o)
		},
	}
	conversationFlag(f, cmd, &o.conversation, "conversation to export (without it or --all: transform stdin to stdout)")
	fl := cmd.Flags()
	fl.BoolVar(&o.all, "all", false, "export every stored conversation")
	fl.BoolVar(&o.incremental, "incremental", false, "only what changed since the last incremental export to --sink; moves its cursor")
	fl.BoolVar(&o.excludeLast, "exclude-last", false, "hold back the last record of each conversation, which may still be merged")
	fl.StringVar(&o.sink, "sink", DefaultSink, "name of the consumer whose cursor --incremental follows")
	fl.BoolVar(&o.ack, "ack", false, "with --incremental: move no cursor; print on stderr the --commit-cursor command the consumer runs once it holds the records")
	fl.StringVar(&commit, "commit-cursor", "", "move the cursors an --ack export left, forward only, once the consumer confirms: TOKEN is what --ack printed")
	fl.StringVarP(&format, "format", "f", string(export.JSONL), "jsonl, json, markdown, dynamodb, dynamodb-batch or otel (OTLP/JSON spans)")
	fl.BoolVar(&o.otelContent, "otel-content", false, "with --format otel or --to otlp: put the messages' texts on the spans (without it none leaves the machine)")
	fl.StringVar(&o.table, "table", "", "table name in dynamodb-batch request bodies")
	fl.StringVar(&to, "to", "", "write to a file, DynamoDB or an OTLP receiver instead of stdout: file://PATH (appended, synced), dynamodb://TABLE (region and credentials from the AWS environment), otlp+http://HOST:PORT or otlp (OTEL_EXPORTER_OTLP_ENDPOINT)")
	fl.StringVar(&o.endpointURL, "endpoint-url", "", "with --to: a DynamoDB-compatible endpoint (default: AWS_ENDPOINT_URL_DYNAMODB, or AWS)")
	return cmd
}

// parse checks the flags together and fills format, dynamoTable and commit.
func (o *exportOptions) parse(changed func(string) bool, format, to, commit string) (err error) {
	if changed("commit-cursor") || commit != "" {
		return o.parseCommit(changed, commit)
	}
	switch {
	case o.conversation != "" && o.all:
		return exitcode.Usagef("give -c or --all, not both")
	case o.conversation == "" && !o.all && (o.incremental || o.excludeLast):
		return exitcode.Usagef("--incremental and --exclude-last need -c ID or --all")
	case changed("sink") && !o.incremental:
		return exitcode.Usagef("--sink names the cursor of --incremental; add --incremental")
	case o.ack && !o.incremental:
		return exitcode.Usagef("--ack leaves the cursor of --incremental for --commit-cursor; add --incremental")
	case o.sink == "":
		return exitcode.Usagef("--sink: want a name")
	case strings.HasPrefix(to, "dynamodb://") && changed("format"):
		return exitcode.Usagef("--to dynamodb:// writes DynamoDB items itself; --format does not apply")
	case o.endpointURL != "" && !strings.HasPrefix(to, "dynamodb://"):
		return exitcode.Usagef("--endpoint-url applies to --to dynamodb:// only")
	}
	if o.conversation != "" {
		if err := flagvalue.ConversationID(o.conversation); err != nil {
			return err
		}
	}
	if o.format, err = export.ParseFormat(format); err != nil {
		return exitcode.Usagef("--format: %v", err)
	}
	if (o.format == export.DynamoDBBatch) != (o.table != "") {
		return exitcode.Usagef("--table goes with --format dynamodb-batch, and that format needs it")
	}
	if err := o.parseOTel(changed, to); err != nil || o.otlp != nil {
		return err
	}
	if o.file, o.dynamoTable, err = export.ParseTo(to); err != nil {
		return &exitcode.UsageError{Err: err}
	}
	return nil
}

// parseCommit checks --commit-cursor TOKEN, which stands alone: the token
// says which sink and cursors.
func (o *exportOptions) parseCommit(changed func(string) bool, token string) (err error) {
	for _, name := range []string{"conversation", "all", "incremental", "sink", "ack", "exclude-last", "format", "table", "to", "endpoint-url", "otel-content"} {
		if changed(name) {
			return exitcode.Usagef("--commit-cursor takes no other export flag (--%s): the token says what to move", name)
		}
	}
	if token == "" {
		return exitcode.Usagef("--commit-cursor: want the token export --ack printed")
	}
	o.commit, err = parseAck(token)
	return err
}

func exportRun(ctx context.Context, o *exportOptions) error {
	if o.commit != nil {
		return commitCursorRun(ctx, o)
	}
	stdin := o.conversation == "" && !o.all
	if stdin && o.f.IO.StdinIsTerminal() {
		return exitcode.Usagef("nothing to export: give -c ID or --all, or pipe records on stdin")
	}
	var s store.Store
	if !stdin {
		// An incremental export moves cursors, one to a file records the
		// file: they change the store, and open it to (never creating it).
		open := o.f.ReadStore
		if o.incremental || o.file != "" {
			open = o.f.ExistingStore
		}
		var err error
		s, err = open(ctx)
		if errors.Is(err, errNoStore) && o.all {
			if o.ack {
				o.printAck(nil) // the consumer's script expects a token
			}
			return nil // a store never written to has nothing to export
		}
		if err != nil {
			return err
		}
	}
	out, err := o.output(ctx, s)
	if err != nil {
		return err
	}
	defer out.close()
	if stdin {
		err = export.Transform(o.f.IO.In, out, o.f.IDs, o.f.nowMillis)
	} else {
		err = o.stored(ctx, s, out)
	}
	if err == nil && out.items != nil {
		o.f.warnf("wrote %d item(s) to dynamodb table %s", out.items.Written, o.dynamoTable)
	}
	if err == nil && out.log != nil {
		err = out.log.Completed(ctx)
	}
	if err == nil && out.otlp != nil {
		// What the receiver took but refused: exit 1 once the export is done.
		err = out.otlp.PartialError()
	}
	return errors.Join(err, out.close())
}

// exportOutput is where an export writes: stdout in the chosen format, a
// log file, or the items of a DynamoDB table, whose writer counts what the
// server accepted. delivered confirms the output before a cursor moves.
type exportOutput struct {
	export.Writer
	items     *dynamo.Writer
	otlp      *otel.Client
	log       *export.RecordedFile
	delivered func(context.Context) error
}

// output opens where the export writes; s is the store it reads (nil: the
// stdin transform).
func (o *exportOptions) output(ctx context.Context, s store.Store) (*exportOutput, error) {
	if o.format == export.OTel && o.file == "" {
		return o.otelOutput(ctx), nil
	}
	switch {
	case o.file != "":
		log, err := o.openLog(ctx, s)
		if err != nil {
			return nil, err
		}
		var w export.Writer = otel.NewWriter(ctx, otel.NewJSONSink(log, otelResource()), o.otelContent)
		if o.format != export.OTel {
			w, err = export.NewWriter(log, o.format, export.Options{Table: o.table})
		}
		if err != nil {
			log.Close()
			return nil, err
		}
		return &exportOutput{Writer: w, log: log, delivered: func(context.Context) error { return log.Sync() }}, nil
	case o.dynamoTable != "":
		client, err := dynamo.NewClient(ctx, o.endpointURL)
		if err != nil {
			return nil, err
		}
		items := dynamo.NewWriter(client, o.dynamoTable)
		return &exportOutput{Writer: export.NewItemWriter(ctx, items), items: items}, nil
	}
	w, err := export.NewWriter(o.f.IO.Out, o.format, export.Options{Table: o.table})
	return &exportOutput{Writer: w, delivered: o.f.IO.OutRead}, err
}

// close closes the log file, if any; twice is no error.
func (out *exportOutput) close() error {
	if out.log == nil {
		return nil
	}
	return out.log.Close()
}

func (o *exportOptions) stored(ctx context.Context, s store.Store, out *exportOutput) error {
	j := export.Job{Conversation: o.conversation, All: o.all, ExcludeLast: o.excludeLast, Delivered: out.delivered}
	if o.incremental {
		j.Sink = o.sink
	}
	var marks *[]store.Mark // --ack: kept for the token, no cursor moved
	if o.ack {
		marks = new([]store.Mark)
	}
	err := export.Run(ctx, store.ExportSource(s, marks), out.Writer, j) // the writer itself, so Run sees it Staged
	if o.incremental && exitcode.OutputLost(err) {
		return &exitcode.UnsentError{Err: err}
	}
	if err == nil && o.ack {
		o.printAck(*marks)
	}
	return err
}
