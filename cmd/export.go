package cmd

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/dynamo"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/store"
)

// exportOptions are the flags of `convo export`.
type exportOptions struct {
	f                             *Factory
	conversation                  string
	all, incremental, excludeLast bool
	sink, table                   string
	format                        export.Format
	dynamoTable, endpointURL      string // --to dynamodb://dynamoTable
	file                          string // --to file://file
}

// newCmdExport builds `convo export`. runF replaces exportRun in tests that
// check flag parsing alone.
func newCmdExport(f *Factory, runF func(context.Context, *exportOptions) error) *cobra.Command {
	o := &exportOptions{f: f}
	var format, to string
	cmd := &cobra.Command{
		Use:   "export -c ID | --all [--incremental [--sink NAME]] [--exclude-last] [--format F | --to dynamodb://TABLE]",
		Short: "Print records as the log a NoSQL store keeps, or write them to DynamoDB",
		Long: `Print the records of a conversation (-c) or of every conversation (--all) as
the log a NoSQL store keeps, or write them to DynamoDB (--to).

Formats: jsonl (canonical records, the default), json (one array), markdown
(for people), dynamodb (one {"Item":{...}} a line, as DynamoDB's import from
S3 reads it) and dynamodb-batch --table T (BatchWriteItem request bodies of
at most 25 items, for aws dynamodb batch-write-item --request-items).
Items have the partition key conversation (S) and the sort key id (S); JSON
values map to S, N (exact decimal text), BOOL, NULL, L and M. A record over
DynamoDB's 400 KB item limit is an error that names it.

--incremental sends only what was written or changed since the last
incremental export to the same --sink (default "default"): a record merged
after it was sent is sent again, whole, with the same id, so a consumer that
upserts by id loses nothing and duplicates nothing. --exclude-last holds back
the last record of each conversation, which may still be merged; a later
export sends it. Delivery is at least once: the sink's cursor moves only once
the output is known delivered. On a pipe, that is when the reader has read
every byte and is still reading (one that quits early, like head, moves
nothing); --to file://PATH appends to PATH (created 0600), syncs it to disk,
then moves the cursor, and first cuts off a torn last line an interrupted
export left, so no record is glued onto it; --to dynamodb://TABLE moves it
once the server accepted every item. An export that fails or is interrupted
moves nothing, and the next one sends it all again. Without --incremental,
export sends everything and moves no cursor. Run one export at a time per
sink: a second one fails at the end.

Without -c or --all, export is a pure transform of the transcript on stdin.`,
		Example: `  convo export -c demo --format markdown
  convo export --all --incremental --exclude-last >> log.jsonl
  convo export --all --incremental --sink s3 --format dynamodb | gzip > part.json.gz
  convo export --all --incremental --exclude-last --to file:///var/log/convo.jsonl
  convo export -c demo --incremental --to dynamodb://convo --endpoint-url http://localhost:8000`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.parse(cmd.Flags().Changed, format, to); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return exportRun(cmd.Context(), o)
		},
	}
	f.conversationFlag(cmd, &o.conversation, "conversation to export (without it or --all: transform stdin to stdout)")
	fl := cmd.Flags()
	fl.BoolVar(&o.all, "all", false, "export every stored conversation")
	fl.BoolVar(&o.incremental, "incremental", false, "only what changed since the last incremental export to --sink; moves its cursor")
	fl.BoolVar(&o.excludeLast, "exclude-last", false, "hold back the last record of each conversation, which may still be merged")
	fl.StringVar(&o.sink, "sink", DefaultSink, "name of the consumer whose cursor --incremental follows")
	fl.StringVarP(&format, "format", "f", string(export.JSONL), "jsonl, json, markdown, dynamodb or dynamodb-batch")
	fl.StringVar(&o.table, "table", "", "table name in dynamodb-batch request bodies")
	fl.StringVar(&to, "to", "", "write to a file or DynamoDB instead of stdout: file://PATH (appended, synced) or dynamodb://TABLE (region and credentials from the AWS environment)")
	fl.StringVar(&o.endpointURL, "endpoint-url", "", "with --to: a DynamoDB-compatible endpoint (default: AWS_ENDPOINT_URL_DYNAMODB, or AWS)")
	return cmd
}

// tableName is what DynamoDB accepts as a table name.
var tableName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`) })

// parse checks the flags together and fills format and dynamoTable.
func (o *exportOptions) parse(changed func(string) bool, format, to string) (err error) {
	switch {
	case o.conversation != "" && o.all:
		return usageErrorf("give -c or --all, not both")
	case o.conversation == "" && !o.all && (o.incremental || o.excludeLast):
		return usageErrorf("--incremental and --exclude-last need -c ID or --all")
	case changed("sink") && !o.incremental:
		return usageErrorf("--sink names the cursor of --incremental; add --incremental")
	case o.sink == "":
		return usageErrorf("--sink: want a name")
	case strings.HasPrefix(to, "dynamodb://") && changed("format"):
		return usageErrorf("--to dynamodb:// writes DynamoDB items itself; --format does not apply")
	case o.endpointURL != "" && !strings.HasPrefix(to, "dynamodb://"):
		return usageErrorf("--endpoint-url applies to --to dynamodb:// only")
	}
	if o.conversation != "" {
		if err := checkConversationID(o.conversation); err != nil {
			return err
		}
	}
	if o.format, err = export.ParseFormat(format); err != nil {
		return usageErrorf("--format: %v", err)
	}
	if (o.format == export.DynamoDBBatch) != (o.table != "") {
		return usageErrorf("--table goes with --format dynamodb-batch, and that format needs it")
	}
	if path, ok := strings.CutPrefix(to, "file://"); ok {
		if path == "" {
			return usageErrorf("--to %q: want file://PATH", to)
		}
		o.file = path
		return nil
	}
	if to != "" {
		var ok bool
		if o.dynamoTable, ok = strings.CutPrefix(to, "dynamodb://"); !ok || !tableName().MatchString(o.dynamoTable) {
			return usageErrorf("--to %q: want file://PATH or dynamodb://TABLE, TABLE of 3 to 255 letters, digits, '_', '-' or '.'", to)
		}
	}
	return nil
}

func exportRun(ctx context.Context, o *exportOptions) error {
	stdin := o.conversation == "" && !o.all
	if stdin && o.f.IO.StdinIsTerminal() {
		return usageErrorf("nothing to export: give -c ID or --all, or pipe records on stdin")
	}
	out, err := o.output(ctx)
	if err != nil {
		return err
	}
	defer out.close()
	if stdin {
		err = export.Transform(o.f.IO.In, out, o.f.IDs, o.f.nowMillis)
	} else {
		err = o.stored(ctx, out)
	}
	if err == nil && out.items != nil {
		o.f.warnf("wrote %d item(s) to dynamodb table %s", out.items.Written, o.dynamoTable)
	}
	return errors.Join(err, out.close())
}

// exportOutput is where an export writes: stdout in the chosen format, a
// log file, or the items of a DynamoDB table, whose writer counts what the
// server accepted. delivered confirms the output before a cursor moves.
type exportOutput struct {
	export.Writer
	items     *dynamo.Writer
	file      *export.File
	delivered func(context.Context) error
}

func (o *exportOptions) output(ctx context.Context) (*exportOutput, error) {
	switch {
	case o.file != "":
		file, err := export.OpenFile(o.file)
		if err != nil {
			return nil, fmt.Errorf("--to file://%s: %w", o.file, err)
		}
		if file.Torn > 0 {
			o.f.warnf("%s ended in a torn line (%d bytes) an interrupted export left; cut it off", o.file, file.Torn)
		}
		w, err := export.NewWriter(file, o.format, export.Options{Table: o.table})
		if err != nil {
			file.Close()
			return nil, err
		}
		return &exportOutput{Writer: w, file: file, delivered: func(context.Context) error { return file.Sync() }}, nil
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
	if out.file == nil {
		return nil
	}
	return out.file.Close()
}

func (o *exportOptions) stored(ctx context.Context, out *exportOutput) error {
	s, err := o.f.ReadStore(ctx)
	if errors.Is(err, errNoStore) && o.all {
		return nil // a store never written to has nothing to export
	}
	if err != nil {
		return err
	}
	j := export.Job{Conversation: o.conversation, All: o.all, ExcludeLast: o.excludeLast, Delivered: out.delivered}
	if o.incremental {
		j.Sink = o.sink
	}
	return export.Run(ctx, exportStore{s}, out, j)
}

// exportStore is the store as export.Run reads it: records as their
// canonical JSON.
type exportStore struct{ store.Store }

func (s exportStore) ExportRecords(ctx context.Context, conv, sink string, excludeLast bool, fn func([]byte) error) (store.Mark, error) {
	return s.Export(ctx, conv, store.ExportOptions{Sink: sink, ExcludeLast: excludeLast},
		func(r store.Row) error { return fn(r.Body) })
}
