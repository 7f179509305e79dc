package cmd

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/convo-cli/convo/pkg/dynamo"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

type exportOptions struct {
	conversation                  string
	all, incremental, excludeLast bool
	sink, format, table           string
	to, endpointURL               string
}

func (a *Factory) newExportCmd() *cobra.Command {
	var o exportOptions
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
export sends it. The sink's cursor moves only once the output was written
and flushed (or the server accepted every item): an export that fails, is
interrupted or whose reader stops early moves nothing, and the next one sends
it all again. Without --incremental, export sends everything and moves no
cursor. Run one export at a time per sink: a second one fails at the end.

Without -c or --all, export is a pure transform of the transcript on stdin.`,
		Example: `  convo export -c demo --format markdown
  convo export --all --incremental --exclude-last >> log.jsonl
  convo export --all --incremental --sink s3 --format dynamodb | gzip > part.json.gz
  convo export -c demo --incremental --to dynamodb://convo --endpoint-url http://localhost:8000`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runExport(cmd.Context(), cmd, &o)
		},
	}
	a.conversationFlag(cmd, &o.conversation, "conversation to export (without it or --all: transform stdin to stdout)")
	f := cmd.Flags()
	f.BoolVar(&o.all, "all", false, "export every stored conversation")
	f.BoolVar(&o.incremental, "incremental", false, "only what changed since the last incremental export to --sink; moves its cursor")
	f.BoolVar(&o.excludeLast, "exclude-last", false, "hold back the last record of each conversation, which may still be merged")
	f.StringVar(&o.sink, "sink", DefaultSink, "name of the consumer whose cursor --incremental follows")
	f.StringVarP(&o.format, "format", "f", string(export.JSONL), "jsonl, json, markdown, dynamodb or dynamodb-batch")
	f.StringVar(&o.table, "table", "", "table name in dynamodb-batch request bodies")
	f.StringVar(&o.to, "to", "", "write to DynamoDB instead of stdout: dynamodb://TABLE (region and credentials from the AWS environment)")
	f.StringVar(&o.endpointURL, "endpoint-url", "", "with --to: a DynamoDB-compatible endpoint (default: AWS_ENDPOINT_URL_DYNAMODB, or AWS)")
	return cmd
}

// tableName is what DynamoDB accepts as a table name.
var tableName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`) })

func (a *Factory) runExport(ctx context.Context, cmd *cobra.Command, o *exportOptions) error {
	changed := cmd.Flags().Changed
	switch {
	case o.conversation != "" && o.all:
		return usageErrorf("give -c or --all, not both")
	case o.conversation == "" && !o.all && (o.incremental || o.excludeLast):
		return usageErrorf("--incremental and --exclude-last need -c ID or --all")
	case changed("sink") && !o.incremental:
		return usageErrorf("--sink names the cursor of --incremental; add --incremental")
	case o.sink == "":
		return usageErrorf("--sink: want a name")
	case o.to != "" && changed("format"):
		return usageErrorf("--to writes DynamoDB items itself; --format does not apply")
	case o.endpointURL != "" && o.to == "":
		return usageErrorf("--endpoint-url applies to --to only")
	}
	if o.conversation != "" {
		if err := checkConversationID(o.conversation); err != nil {
			return err
		}
	}
	format, err := export.ParseFormat(o.format)
	if err != nil {
		return usageErrorf("--format: %v", err)
	}
	if (format == export.DynamoDBBatch) != (o.table != "") {
		return usageErrorf("--table goes with --format dynamodb-batch, and that format needs it")
	}

	var out export.Writer
	var items *dynamo.Writer
	if o.to != "" {
		table, ok := strings.CutPrefix(o.to, "dynamodb://")
		if !ok || !tableName().MatchString(table) {
			return usageErrorf("--to %q: want dynamodb://TABLE, TABLE of 3 to 255 letters, digits, '_', '-' or '.'", o.to)
		}
		client, err := dynamo.NewClient(ctx, o.endpointURL)
		if err != nil {
			return err
		}
		items = dynamo.NewWriter(client, table)
		out = &dynamoOut{ctx: ctx, w: items}
	} else if out, err = export.NewWriter(a.IO.Out, format, export.Options{Table: o.table}); err != nil {
		return usageErrorf("%v", err)
	}

	if o.conversation == "" && !o.all {
		if a.IO.StdinIsTerminal() {
			return usageErrorf("nothing to export: give -c ID or --all, or pipe records on stdin")
		}
		if err := a.exportTransform(out); err != nil {
			return err
		}
	} else if err := a.exportStored(ctx, o, out); err != nil {
		return err
	}
	if items != nil {
		a.warnf("wrote %d item(s) to dynamodb table %s", items.Written, strings.TrimPrefix(o.to, "dynamodb://"))
	}
	return nil
}

// exportStored exports from the store, then, once the output is complete,
// moves the cursors.
func (a *Factory) exportStored(ctx context.Context, o *exportOptions, out export.Writer) error {
	s, err := a.Store(ctx)
	if err != nil {
		return err
	}
	opt := store.ExportOptions{ExcludeLast: o.excludeLast}
	if o.incremental {
		opt.Sink = o.sink
	}
	convs := []string{o.conversation}
	if o.all {
		if convs, err = s.ExportConversations(ctx, opt.Sink); err != nil {
			return err
		}
	}
	marks := make([]store.Mark, 0, len(convs))
	for _, c := range convs {
		m, err := s.Export(ctx, c, opt, func(r store.Row) error { return out.Write(r.Body) })
		if o.all && errors.Is(err, store.ErrNotFound) {
			continue // cleared since the listing
		}
		if err != nil {
			return err
		}
		marks = append(marks, m)
	}
	// Only output that is complete moves a cursor: a failed Close (a closed
	// pipe, a full disk, items the server refused) leaves every cursor where
	// it was, so the next export sends it all again.
	if err := out.Close(); err != nil || !o.incremental {
		return err
	}
	return s.Commit(ctx, marks...)
}

// exportTransform exports the transcript read on stdin, with the rules of
// SPEC section 2 applied, touching no store.
func (a *Factory) exportTransform(out export.Writer) error {
	lines := &lineSplitter{out: out}
	enc := transcript.NewEncoder(lines)
	rw := transcript.NewRewriter(enc, "", a.IDs, a.nowMillis)
	if err := rw.Copy(transcript.NewDecoder(a.IO.In), nil); err != nil {
		return err
	}
	if err := rw.Close(); err != nil {
		return err
	}
	return out.Close()
}

// lineSplitter hands each line written to it to a format Writer, so the
// rewriter, which writes JSONL, can feed any format.
type lineSplitter struct {
	out  export.Writer
	part []byte
}

func (l *lineSplitter) Write(p []byte) (int, error) {
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.part = append(l.part, p...)
			return n, nil
		}
		line := p[:i]
		if len(l.part) > 0 {
			l.part = append(l.part, line...)
			line = l.part
		}
		if err := l.out.Write(line); err != nil {
			return 0, err
		}
		l.part, p = l.part[:0], p[i+1:]
	}
}

// dynamoOut is the export.Writer of --to: records become DynamoDB JSON
// items, sent 25 at a time.
type dynamoOut struct {
	ctx context.Context
	w   *dynamo.Writer
	buf []byte
}

func (d *dynamoOut) Write(body []byte) error {
	item, err := export.AppendItem(d.buf[:0], body)
	if err != nil {
		return err
	}
	d.buf = item
	return d.w.Put(d.ctx, item)
}

func (d *dynamoOut) Close() error { return d.w.Flush(d.ctx) }
