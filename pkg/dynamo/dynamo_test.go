package dynamo_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/convo-cli/convo/cmd"
	"github.com/convo-cli/convo/pkg/dynamo"
	"github.com/convo-cli/convo/pkg/store"
	"github.com/convo-cli/convo/pkg/transcript"
)

// dynalite, a DynamoDB-compatible server on Node, is started once for the
// package, on a loopback port it picks itself, and stopped after the tests.
var server struct {
	once     sync.Once
	endpoint string
	err      error
	skip     string
	cmd      *exec.Cmd
}

func TestMain(m *testing.M) {
	code := m.Run()
	if server.cmd != nil {
		server.cmd.Process.Kill()
		server.cmd.Wait()
	}
	os.Exit(code)
}

// dynaliteDir is where .ci/install-dynalite.sh puts dynalite.
func dynaliteDir() string {
	if d := os.Getenv("DYNALITE_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "convo", "dynalite")
}

// endpoint returns the URL of a running dynalite, installing it with npm
// first when it is missing. It skips the test only when node is absent.
func endpoint(t *testing.T) string {
	t.Helper()
	server.once.Do(startDynalite)
	if server.skip != "" {
		t.Skip(server.skip)
	}
	if server.err != nil {
		t.Fatal(server.err)
	}
	// The SDK takes region and credentials from the environment; keep the
	// machine's own AWS files out of it.
	for k, v := range map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_DYNAMODB": "", "AWS_PROFILE": ""} {
		t.Setenv(k, v)
	}
	return server.endpoint
}

func startDynalite() {
	if _, err := exec.LookPath("node"); err != nil {
		server.skip = "node is not installed: the DynamoDB tests need it to run dynalite (npm install dynalite@4)"
		return
	}
	dir := dynaliteDir()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "dynalite")); err != nil {
		install := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "dynalite@4")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			server.err = err
			return
		}
		install.Dir = dir
		if out, err := install.CombinedOutput(); err != nil {
			server.err = fmt.Errorf("npm install dynalite@4 in %s (or run .ci/install-dynalite.sh): %v\n%s", dir, err, out)
			return
		}
	}
	c := exec.Command("node", "-e", `const d = require('dynalite')({createTableMs: 0, deleteTableMs: 0, updateTableMs: 0});
d.listen(0, '127.0.0.1', () => console.log(d.address().port));`)
	c.Dir = dir
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err == nil {
		err = c.Start()
	}
	if err != nil {
		server.err = fmt.Errorf("start dynalite: %w", err)
		return
	}
	server.cmd = c
	port := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		port <- strings.TrimSpace(line)
		io.Copy(io.Discard, out)
	}()
	select {
	case p := <-port:
		if p == "" {
			server.err = errors.New("dynalite exited before it listened")
			return
		}
		server.endpoint = "http://127.0.0.1:" + p
	case <-time.After(30 * time.Second):
		server.err = errors.New("dynalite did not listen within 30s")
	}
}

func client(t *testing.T, url string) *dynamodb.Client {
	t.Helper()
	c, err := dynamo.NewClient(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var tables int

// createTable makes a fresh table keyed as export writes: partition key
// conversation, sort key id.
func createTable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	tables++
	name := fmt.Sprintf("convo-%d", tables)
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("conversation"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("conversation"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("id"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// scan reads the whole table back as plain values keyed by id.
func scan(t *testing.T, c *dynamodb.Client, table string) map[string]any {
	t.Helper()
	items := map[string]any{}
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			v := plain(&types.AttributeValueMemberM{Value: it}).(map[string]any)
			items[v["id"].(string)] = v
		}
	}
	return items
}

// plain turns an attribute value into the value encoding/json gives, with
// numbers as exact rationals, since a server may write 1.50 as 1.5.
func plain(av types.AttributeValue) any {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return number(v.Value)
	case *types.AttributeValueMemberBOOL:
		return v.Value
	case *types.AttributeValueMemberNULL:
		return nil
	case *types.AttributeValueMemberL:
		l := []any{}
		for _, e := range v.Value {
			l = append(l, plain(e))
		}
		return l
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range v.Value {
			m[k] = plain(e)
		}
		return m
	}
	panic(fmt.Sprintf("unexpected attribute value %T", av))
}

func number(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "bad number " + s
	}
	return r.RatString()
}

// stored reads the conversations back from the store as plain values.
func stored(t *testing.T, s *store.Store, convs ...string) map[string]any {
	t.Helper()
	want := map[string]any{}
	for _, c := range convs {
		err := s.Read(context.Background(), c, store.ReadOptions{}, func(r store.Row) error {
			d := json.NewDecoder(strings.NewReader(string(r.Body)))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				return err
			}
			v = numbers(v)
			want[v.(map[string]any)["id"].(string)] = v
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return want
}

func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		return number(string(v))
	case []any:
		for i := range v {
			v[i] = numbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = numbers(v[k])
		}
	}
	return v
}

func appendRecords(t *testing.T, s *store.Store, conv string, recs ...transcript.Record) {
	t.Helper()
	i := 0
	_, err := s.Append(context.Background(), conv, transcript.NewIDs(), func() (transcript.Record, error) {
		if i == len(recs) {
			return transcript.Record{}, io.EOF
		}
		i++
		return recs[i-1], nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func msg(role transcript.Role, contents ...string) transcript.Record {
	return transcript.Record{Message: transcript.Message{Role: role, Contents: contents}}
}

// convo runs the CLI in-process and returns its status and stderr.
func convo(t *testing.T, args ...string) (int, string) {
	t.Helper()
	io, _, errOut := cmd.Test("")
	code := cmd.Run(context.Background(), args, io)
	return code, errOut.String()
}

func openStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "convo.db")
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// TestExportToDynamoDB exports 1,000 records (40 batches) and a varied
// conversation through the CLI, reads the items back, and compares them
// with the store; then a merge is exported again, whole, in place.
func TestExportToDynamoDB(t *testing.T) {
	url := endpoint(t)
	c := client(t, url)
	table := createTable(t, c)
	s, db := openStore(t)

	var big []transcript.Record
	for i := range 1000 {
		role := transcript.RoleUser
		if i%2 == 1 {
			role = transcript.RoleAssistant
		}
		big = append(big, msg(role, fmt.Sprintf("message %d", i)))
	}
	appendRecords(t, s, "big", big...)
	u := msg(transcript.RoleUser, "Hi ☕ \"there\"", "")
	u.Metadata.Aux = map[string]json.RawMessage{
		"price": json.RawMessage("19.990000000000000000000000000000000001"), "exp": json.RawMessage("-1.5e-7"),
		"nested": json.RawMessage(`{"list":[1,"two",false,null,{"deep":[]}],"empty":{}}`),
	}
	a := transcript.Record{Message: transcript.Message{Role: transcript.RoleAssistant,
		ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"location":"Paris"}`}}}}
	tool := transcript.Record{Message: transcript.Message{Role: transcript.RoleTool, Contents: []string{"21C"}, ToolCallID: "call_1", Name: "get_weather", IsError: true}}
	appendRecords(t, s, "demo", u, a, tool)

	to := "dynamodb://" + table
	code, stderr := convo(t, "--db", db, "export", "--all", "--incremental", "--to", to, "--endpoint-url", url)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "wrote 1003 item(s)") {
		t.Errorf("stderr %q, want it to count 1003 items", stderr)
	}
	if got, want := scan(t, c, table), stored(t, s, "big", "demo"); !reflect.DeepEqual(got, want) {
		t.Fatalf("the table differs from the store: %d items, %d records\nfirst difference: %s", len(got), len(want), firstDiff(got, want))
	}

	// A merge after the export: the record goes again, whole, same id.
	for _, text := range []string{"It is 22C.", "Sunny."} {
		appendRecords(t, s, "demo", msg(transcript.RoleAssistant, text))
		code, stderr = convo(t, "--db", db, "export", "-c", "demo", "--incremental", "--to", to, "--endpoint-url", url)
		if code != 0 || !strings.Contains(stderr, "wrote 1 item(s)") {
			t.Fatalf("export after appending %q: exit %d: %s", text, code, stderr)
		}
	}
	got, want := scan(t, c, table), stored(t, s, "big", "demo")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the merge the table differs from the store: %s", firstDiff(got, want))
	}
	if len(got) != 1004 {
		t.Fatalf("%d items, want 1004: the merge must replace its item", len(got))
	}
	code, stderr = convo(t, "--db", db, "export", "--all", "--incremental", "--to", to, "--endpoint-url", url)
	if code != 0 || !strings.Contains(stderr, "wrote 0 item(s)") {
		t.Fatalf("third export: exit %d: %s, want nothing left to write", code, stderr)
	}
}

func firstDiff(got, want map[string]any) string {
	for id, w := range want {
		if g, ok := got[id]; !ok || !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%s: table %v, store %v", id, g, w)
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			return fmt.Sprintf("%s only in the table: %v", id, g)
		}
	}
	return "none"
}

// TestExportItemTooLarge: a record over 400 KB fails the export, naming
// the record, and moves no cursor; the server refuses such an item too.
func TestExportItemTooLarge(t *testing.T) {
	url := endpoint(t)
	c := client(t, url)
	table := createTable(t, c)
	s, db := openStore(t)
	appendRecords(t, s, "huge", msg(transcript.RoleUser, "small"), msg(transcript.RoleAssistant, strings.Repeat("x", 410<<10)))
	var id string
	s.Read(context.Background(), "huge", store.ReadOptions{}, func(r store.Row) error {
		id = string(r.Body[7:33])
		return nil
	})
	code, stderr := convo(t, "--db", db, "export", "-c", "huge", "--incremental", "--to", "dynamodb://"+table, "--endpoint-url", url)
	if code != 1 || !strings.Contains(stderr, id) || !strings.Contains(stderr, "400 KB") {
		t.Fatalf("exit %d, stderr %q: want exit 1 naming record %s", code, stderr, id)
	}
	if seq, err := s.Cursor(context.Background(), "huge", cmd.DefaultSink); err != nil || seq != 0 {
		t.Fatalf("cursor moved to %d (%v) by a failed export", seq, err)
	}
	// dynalite agrees the item is too large: the check is no stricter than the server.
	item := map[string]types.AttributeValue{
		"conversation": &types.AttributeValueMemberS{Value: "huge"}, "id": &types.AttributeValueMemberS{Value: id},
		"body": &types.AttributeValueMemberS{Value: strings.Repeat("x", 410<<10)},
	}
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err == nil {
		t.Error("dynalite took an item over 400 KB")
	}
}

// TestExportMissingTable: a table that does not exist is exit 1, cursor kept.
func TestExportMissingTable(t *testing.T) {
	url := endpoint(t)
	s, db := openStore(t)
	appendRecords(t, s, "c", msg(transcript.RoleUser, "hi"))
	code, stderr := convo(t, "--db", db, "export", "-c", "c", "--incremental", "--to", "dynamodb://no-such-table", "--endpoint-url", url)
	if code != 1 || !strings.Contains(stderr, "no-such-table") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if seq, _ := s.Cursor(context.Background(), "c", cmd.DefaultSink); seq != 0 {
		t.Fatalf("cursor moved to %d", seq)
	}
}

// flaky leaves some items unprocessed, as DynamoDB does under throttling.
type flaky struct {
	calls, leave int
	got          []string
}

func (f *flaky) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	f.calls++
	out := &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}}
	for table, reqs := range in.RequestItems {
		n := min(f.leave, len(reqs))
		for _, r := range reqs[n:] {
			f.got = append(f.got, r.PutRequest.Item["id"].(*types.AttributeValueMemberS).Value)
		}
		if n > 0 {
			out.UnprocessedItems[table] = reqs[:n]
		}
		if f.leave > 0 {
			f.leave--
		}
	}
	return out, nil
}

func TestWriterRetriesUnprocessed(t *testing.T) {
	f := &flaky{leave: 3}
	w := dynamo.NewWriter(f, "t")
	w.Backoff = time.Millisecond
	ctx := context.Background()
	for i := range 30 {
		if err := w.Put(ctx, fmt.Appendf(nil, `{"conversation":{"S":"c"},"id":{"S":"%02d"}}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if w.Written != 30 || len(f.got) != 30 {
		t.Fatalf("written %d, server got %d, want 30", w.Written, len(f.got))
	}
	// A server that never takes the last items makes Flush fail.
	f = &flaky{leave: 1 << 30}
	w = dynamo.NewWriter(f, "t")
	w.Backoff, w.Attempts = time.Millisecond, 3
	w.Put(ctx, []byte(`{"id":{"S":"x"}}`))
	if err := w.Flush(ctx); err == nil || !strings.Contains(err.Error(), "unprocessed after 3 attempts") || f.calls != 3 {
		t.Fatalf("got %v after %d calls, want a failure after 3", err, f.calls)
	}
}

func TestWriterItemTypes(t *testing.T) {
	f := &flaky{}
	w := dynamo.NewWriter(f, "t")
	ctx := context.Background()
	if err := w.Put(ctx, []byte(`{"id":{"S":"x"},"v":{"M":{"l":{"L":[{"N":"1.50"},{"BOOL":false},{"NULL":true},{"S":""}]}}}}`)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{"id":{}}`, `{"id":{"X":"y"}}`, `not json`} {
		if err := w.Put(ctx, []byte(bad)); err == nil {
			t.Errorf("Put(%s): no error", bad)
		}
	}
}
