// Package dynamotest runs dynalite, a DynamoDB-compatible server on Node,
// for the tests that write to DynamoDB, and reads tables back as plain
// values to compare with records.
package dynamotest

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
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/convo-cli/convo/pkg/dynamo"
)

// server is the one dynalite of the test binary, started on first use on a
// loopback port it picks itself.
var server struct {
	sync.Mutex
	started  bool
	endpoint string
	err      error
	skip     string
	cmd      *exec.Cmd
}

// Stop stops dynalite if it runs; the next Endpoint starts it again. Call
// it from TestMain after m.Run, or, in a package without TestMain, with
// t.Cleanup after Endpoint.
func Stop() {
	server.Lock()
	defer server.Unlock()
	if server.cmd != nil {
		server.cmd.Process.Kill()
		server.cmd.Wait()
	}
	server.started, server.endpoint, server.err, server.skip, server.cmd = false, "", nil, "", nil
}

// Dir is where .ci/install-dynalite.sh puts dynalite.
func Dir() string {
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

// Endpoint returns the URL of a running dynalite, installing it with npm
// first when it is missing. It skips t only when node is absent. It points
// the AWS SDK at a test region and credentials, and keeps the machine's own
// AWS files out, through t.Setenv.
func Endpoint(t testing.TB) string {
	t.Helper()
	server.Lock()
	if !server.started {
		server.started = true
		start()
	}
	endpoint, skip, err := server.endpoint, server.skip, server.err
	server.Unlock()
	if skip != "" {
		t.Skip(skip)
	}
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_DYNAMODB": "", "AWS_PROFILE": ""} {
		t.Setenv(k, v)
	}
	return endpoint
}

// start starts dynalite; server is locked.
func start() {
	if _, err := exec.LookPath("node"); err != nil {
		server.skip = "node is not installed: the DynamoDB tests need it to run dynalite (npm install dynalite@4)"
		return
	}
	dir := Dir()
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

// Client returns a client of the dynalite at url, made as convo makes its own.
func Client(t testing.TB, url string) *dynamodb.Client {
	t.Helper()
	c, err := dynamo.NewClient(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var tables atomic.Int64

// CreateTable makes a fresh table keyed as export writes items: partition
// key conversation, sort key id.
func CreateTable(t testing.TB, c *dynamodb.Client) string {
	t.Helper()
	name := fmt.Sprintf("convo-%d", tables.Add(1))
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

// Scan reads the whole table back as plain values (Plain) keyed by id.
func Scan(t testing.TB, c *dynamodb.Client, table string) map[string]any {
	t.Helper()
	items := map[string]any{}
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			v := Plain(&types.AttributeValueMemberM{Value: it}).(map[string]any)
			items[v["id"].(string)] = v
		}
	}
	return items
}

// Plain turns an attribute value into the value encoding/json gives, with
// numbers as exact rationals, since a server may write 1.50 as 1.5.
func Plain(av types.AttributeValue) any {
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
			l = append(l, Plain(e))
		}
		return l
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range v.Value {
			m[k] = Plain(e)
		}
		return m
	}
	panic(fmt.Sprintf("unexpected attribute value %T", av))
}

// Record decodes a record's canonical JSON as Plain gives its item, and
// adds it to m under its id.
func Record(t testing.TB, m map[string]any, body []byte) {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	v = numbers(v)
	m[v.(map[string]any)["id"].(string)] = v
}

func number(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "bad number " + s
	}
	return r.RatString()
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

// FirstDiff names the first item where a table (got) and the records
// (want) differ, for a failure message.
func FirstDiff(got, want map[string]any) string {
	for id, w := range want {
		if g, ok := got[id]; !ok || !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%s: table %v, records %v", id, g, w)
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			return fmt.Sprintf("%s only in the table: %v", id, g)
		}
	}
	return "none"
}
