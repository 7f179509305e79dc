package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/dynamo/dynamotest"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/iostreams"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// exportOpts parses args as `convo export` does and returns the options
// exportRun would get, or the error of parsing.
func exportOpts(t *testing.T, f *Factory, args ...string) (*exportOptions, error) {
	t.Helper()
	return parseFlags(t, f, newCmdExport, args...)
}

func TestExportFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    exportOptions // what runF sees, f left out
		errText string        // a usage error (exit 2) containing it; "" for none
	}{
		{args: []string{"-c", "demo"}, want: exportOptions{conversation: "demo", sink: "default", format: export.JSONL}},
		{args: nil, want: exportOptions{sink: "default", format: export.JSONL}}, // the stdin transform
		{args: []string{"--all", "--incremental", "--sink", "s3", "--exclude-last", "-f", "dynamodb"},
			want: exportOptions{all: true, incremental: true, excludeLast: true, sink: "s3", format: export.DynamoDB}},
		{args: []string{"-c", "demo", "--format", "dynamodb-batch", "--table", "convo"},
			want: exportOptions{conversation: "demo", sink: "default", format: export.DynamoDBBatch, table: "convo"}},
		{args: []string{"-c", "demo", "--to", "dynamodb://my.table_1", "--endpoint-url", "http://127.0.0.1:8000"},
			want: exportOptions{conversation: "demo", sink: "default", format: export.JSONL, dynamoTable: "my.table_1", endpointURL: "http://127.0.0.1:8000"}},
		{args: []string{"--all", "--incremental", "--to", "file:///var/log/convo.md", "--format", "markdown"},
			want: exportOptions{all: true, incremental: true, sink: "default", format: export.Markdown, file: "/var/log/convo.md"}},
		{args: []string{"-c", "demo", "--incremental", "--ack"},
			want: exportOptions{conversation: "demo", incremental: true, ack: true, sink: "default", format: export.JSONL}},

		{args: []string{"-c", "demo", "--ack"}, errText: "--ack leaves the cursor of --incremental for --commit-cursor; add --incremental"},
		{args: []string{"--commit-cursor", "ack1.eJwBAAD__wAAAAE", "-c", "demo"}, errText: "--commit-cursor takes no other export flag (--conversation)"},
		{args: []string{"--commit-cursor", "ack1.eJwBAAD__wAAAAE", "--sink", "s"}, errText: "--commit-cursor takes no other export flag (--sink)"},
		{args: []string{"--commit-cursor", ""}, errText: "--commit-cursor: want the token"},
		{args: []string{"--commit-cursor", "bogus"}, errText: "not a token that export --ack printed"},
		{args: []string{"-c", "demo", "--all"}, errText: "give -c or --all, not both"},
		{args: []string{"-c", "demo", "--sink", "x"}, errText: "add --incremental"},
		{args: []string{"--incremental"}, errText: "need -c ID or --all"},
		{args: []string{"--exclude-last"}, errText: "need -c ID or --all"},
		{args: []string{"-c", "demo", "--incremental", "--sink", ""}, errText: "--sink: want a name"},
		{args: []string{"-c", "demo", "--format", "xml"}, errText: `unknown format "xml"`},
		{args: []string{"-c", "demo", "--format", "dynamodb-batch"}, errText: "--table goes with --format dynamodb-batch"},
		{args: []string{"-c", "demo", "--table", "convo"}, errText: "--table goes with --format dynamodb-batch"},
		{args: []string{"-c", "demo", "--to", "s3://bucket"}, errText: "dynamodb://TABLE"},
		{args: []string{"-c", "demo", "--to", "dynamodb://ab"}, errText: "dynamodb://TABLE"},
		{args: []string{"-c", "demo", "--to", "dynamodb://a/b"}, errText: "dynamodb://TABLE"},
		{args: []string{"-c", "demo", "--to", "dynamodb://convo", "--format", "json"}, errText: "--format does not apply"},
		{args: []string{"-c", "demo", "--endpoint-url", "http://127.0.0.1:1"}, errText: "--endpoint-url applies to --to dynamodb:// only"},
		{args: []string{"-c", "demo", "--to", "file://x.jsonl", "--endpoint-url", "http://127.0.0.1:1"}, errText: "--endpoint-url applies to --to dynamodb:// only"},
		{args: []string{"-c", "demo", "--to", "file://"}, errText: "want file://PATH"},
		{args: []string{"-c", "a\x00b"}, errText: "NUL"},
		{args: []string{"-c", "demo", "extra"}, errText: "extra"},
		{args: []string{"-c", "demo", "--bogus"}, errText: "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t, "")
			got, err := exportOpts(t, f, tt.args...)
			if tt.errText != "" {
				if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error %v (exit %d), want a usage error containing %q", err, exitcode.Of(err), tt.errText)
				}
				if got != nil {
					t.Error("runF ran after a usage error")
				}
				return
			}
			if err != nil || got == nil {
				t.Fatalf("error %v, runF ran: %v", err, got != nil)
			}
			got.f = nil
			if *got != tt.want {
				t.Errorf("runF saw %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// exportAppend appends one message a text to conv, roles alternating from user.
func exportAppend(t *testing.T, f *Factory, conv string, texts ...string) {
	t.Helper()
	s, err := f.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]transcript.Record, len(texts))
	for i, text := range texts {
		role := []transcript.Role{transcript.RoleUser, transcript.RoleAssistant}[i%2]
		recs[i] = transcript.Record{Message: transcript.Message{Role: role, Contents: []string{text}}}
	}
	_, err = s.Append(context.Background(), conv, f.IDs, transcript.Slice(recs...))
	if err != nil {
		t.Fatal(err)
	}
}

// runExport runs exportRun with the options args parse to.
func runExport(t *testing.T, f *Factory, args ...string) error {
	t.Helper()
	o, err := exportOpts(t, f, args...)
	if err != nil {
		t.Fatalf("export %q: %v", args, err)
	}
	return exportRun(context.Background(), o)
}

func TestExportRun(t *testing.T) {
	ctx := context.Background()
	f, out, _ := testFactory(t, "")
	exportAppend(t, f, "demo", "hello", "hi there")
	if err := runExport(t, f, "-c", "demo", "--incremental"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), `"conversation":"demo"`); n != 2 {
		t.Fatalf("exported %d records, want 2:\n%s", n, out)
	}
	s, _ := f.Store(ctx)
	if seq, err := s.Cursor(ctx, "demo", DefaultSink); err != nil || seq == 0 {
		t.Fatalf("cursor at %d (%v) after an incremental export", seq, err)
	}
	out.Reset()
	if err := runExport(t, f, "-c", "demo", "--incremental", "--format", "json"); err != nil || out.String() != "[]\n" {
		t.Fatalf("second export: %q, %v; want an empty array", out, err)
	}

	err := runExport(t, f, "-c", "nobody")
	if !errors.Is(err, store.ErrNotFound) || exitcode.Of(err) != exitcode.NotFound {
		t.Errorf("export of a missing conversation: %v (exit %d), want not found", err, exitcode.Of(err))
	}
	f.IO.SetStdinTTY(true)
	if err := runExport(t, f); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "nothing to export") {
		t.Errorf("export with a terminal on stdin: %v, want a usage error", err)
	}
}

func TestExportRunTransform(t *testing.T) {
	f, out, _ := testFactory(t, `{"role":"user","content":"Weather in Paris?"}
{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"sunny"}
`)
	if err := runExport(t, f, "--format", "markdown"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Conversation `stdin`", "## user", "## tool: get_weather"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if f.store != nil {
		t.Error("the stdin transform opened the store")
	}
}

// TestExportRunDynamoDB exports 1,000 records (40 batches) and a varied
// conversation to dynalite, reads the items back and compares them with
// the store; then a merge is exported again, whole, in place.
func TestExportRunDynamoDB(t *testing.T) {
	url := dynamotest.Endpoint(t)
	t.Cleanup(dynamotest.Stop)
	c := dynamotest.Client(t, url)
	table := dynamotest.CreateTable(t, c)
	ctx := context.Background()
	f, _, errOut := testFactory(t, "")
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = fmt.Sprintf("message %d", i)
	}
	exportAppend(t, f, "big", texts...)
	exportAppend(t, f, "demo", "Hi ☕ \"there\"", "I am fine.")
	s, _ := f.Store(ctx)
	stored := func() map[string]any {
		want := map[string]any{}
		for _, conv := range []string{"big", "demo"} {
			s.Read(ctx, conv, store.ReadOptions{}, func(r store.Row) error {
				dynamotest.Record(t, want, r.Body)
				return nil
			})
		}
		return want
	}
	send := func(want string, args ...string) {
		t.Helper()
		errOut.Reset()
		if err := runExport(t, f, append(args, "--incremental", "--to", "dynamodb://"+table, "--endpoint-url", url)...); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(errOut.String(), want) {
			t.Fatalf("stderr %q, want %q", errOut, want)
		}
	}

	send("wrote 1002 item(s) to dynamodb table "+table, "--all")
	if got, want := dynamotest.Scan(t, c, table), stored(); !reflect.DeepEqual(got, want) {
		t.Fatalf("the table differs from the store: %d items, %d records\nfirst difference: %s", len(got), len(want), dynamotest.FirstDiff(got, want))
	}
	exportAppend(t, f, "demo", "And you?") // a new record
	send("wrote 1 item(s)", "-c", "demo")
	if _, err := s.Append(ctx, "demo", f.IDs, transcript.Slice(transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"Sunny."}}})); err != nil { // merges into it
		t.Fatal(err)
	}
	send("wrote 1 item(s)", "-c", "demo")
	got, want := dynamotest.Scan(t, c, table), stored()
	if !reflect.DeepEqual(got, want) || len(got) != 1003 {
		t.Fatalf("after the merge: %d items, want 1003, first difference: %s", len(got), dynamotest.FirstDiff(got, want))
	}
	send("wrote 0 item(s)", "--all")

	// A table that does not exist fails the export and moves no cursor.
	exportAppend(t, f, "more", "hello")
	err := runExport(t, f, "-c", "more", "--incremental", "--to", "dynamodb://no-such-table", "--endpoint-url", url)
	if exitcode.Of(err) != exitcode.Failure || !strings.Contains(err.Error(), "no-such-table") {
		t.Fatalf("export to a missing table: %v (exit %d)", err, exitcode.Of(err))
	}
	if seq, _ := s.Cursor(ctx, "more", DefaultSink); seq != 0 {
		t.Fatalf("a failed export moved the cursor to %d", seq)
	}
}

// An incremental export whose stdout reader went away exits 141 whether
// the pipe broke or the reader quit after taking everything at once, and
// says that nothing was marked as sent; without --incremental a broken
// pipe is as quiet as SIGPIPE.
func TestExportReaderGone(t *testing.T) {
	for _, err := range []error{&exitcode.UnsentError{Err: iostreams.ErrUndelivered}, &exitcode.UnsentError{Err: &iostreams.OutputError{Err: syscall.EPIPE}}} {
		if exitcode.Of(err) != exitcode.BrokenPipe || exitcode.Quiet(err) || !strings.HasSuffix(err.Error(), "; nothing was marked as sent") {
			t.Errorf("%v: exit %d, quiet %v; want 141 and a message", err, exitcode.Of(err), exitcode.Quiet(err))
		}
	}
	if err := (&iostreams.OutputError{Err: syscall.EPIPE}); exitcode.Of(err) != exitcode.BrokenPipe || !exitcode.Quiet(err) {
		t.Errorf("a broken pipe: exit %d, quiet %v; want a quiet 141", exitcode.Of(err), exitcode.Quiet(err))
	}
	if exitcode.OutputLost(errors.New("disk full")) || !exitcode.OutputLost(fmt.Errorf("flush: %w", iostreams.ErrUndelivered)) {
		t.Error("outputLost tells the reader's going from other failures")
	}

	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	db := filepath.Join(t.TempDir(), "convo.db")
	io, _, _ := iostreams.Test("")
	if code := Run(context.Background(), []string{"--db", db, "append", "-c", "demo", "hello"}, io); code != exitcode.OK {
		t.Fatalf("append: exit %d", code)
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"export", "-c", "demo", "--incremental"}, "convo: write /dev/stdout: broken pipe; nothing was marked as sent\n"},
		{[]string{"export", "-c", "demo"}, ""},
	} {
		io, _, errOut := iostreams.Test("")
		io.Out = failingWriter{syscall.EPIPE}
		if code := Run(context.Background(), append([]string{"--db", db}, tc.args...), io); code != exitcode.BrokenPipe || errOut.String() != tc.stderr {
			t.Errorf("%v: exit %d, stderr %q; want 141 and %q", tc.args, code, errOut, tc.stderr)
		}
	}
}
