package dynamo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/convo-cli/convo/pkg/dynamo"
	"github.com/convo-cli/convo/pkg/dynamo/dynamotest"
	"github.com/convo-cli/convo/pkg/export"
	"github.com/convo-cli/convo/pkg/transcript"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dynamotest.Stop()
	os.Exit(code)
}

// body is the canonical JSON of a message of conversation conv.
func body(ids *transcript.IDs, conv string, m transcript.Message, aux map[string]json.RawMessage) []byte {
	const ms = 1744815823058
	r := transcript.Record{ID: ids.New(ms), Conversation: conv, Message: m,
		Metadata: transcript.Metadata{Timing: transcript.Timing{Creation: ms}, Aux: aux}}
	return transcript.AppendJSON(nil, &r)
}

// put writes records as items, as export --to does, and returns how many
// items the server accepted.
func put(t *testing.T, c *dynamodb.Client, table string, bodies ...[]byte) int {
	t.Helper()
	w := dynamo.NewWriter(c, table)
	ctx := context.Background()
	for _, b := range bodies {
		item, err := export.AppendItem(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Put(ctx, item); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return w.Written
}

// TestWriterToDynalite writes 1,000 records (40 batches) and a varied
// conversation, reads the items back and compares them with the records;
// then a record written again under its id replaces its item.
func TestWriterToDynalite(t *testing.T) {
	c := dynamotest.Client(t, dynamotest.Endpoint(t))
	table := dynamotest.CreateTable(t, c)
	ids := transcript.NewIDs()
	var bodies [][]byte
	for i := range 1000 {
		role := []transcript.Role{transcript.RoleUser, transcript.RoleAssistant}[i%2]
		bodies = append(bodies, body(ids, "big", transcript.Message{Role: role, Contents: []string{fmt.Sprintf("message %d", i)}}, nil))
	}
	bodies = append(bodies,
		body(ids, "demo", transcript.Message{Role: transcript.RoleUser, Contents: []string{"Hi ☕ \"there\"", ""}}, map[string]json.RawMessage{
			"price": json.RawMessage("19.990000000000000000000000000000000001"), "exp": json.RawMessage("-1.5e-7"),
			"nested": json.RawMessage(`{"list":[1,"two",false,null,{"deep":[]}],"empty":{}}`),
		}),
		body(ids, "demo", transcript.Message{Role: transcript.RoleAssistant,
			ToolCalls: []transcript.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"location":"Paris"}`}}}, nil),
		body(ids, "demo", transcript.Message{Role: transcript.RoleTool, Contents: []string{"21C"}, ToolCallID: "call_1", Name: "get_weather", IsError: true}, nil),
	)
	if n := put(t, c, table, bodies...); n != 1003 {
		t.Fatalf("the server accepted %d items, want 1003", n)
	}
	want := map[string]any{}
	for _, b := range bodies {
		dynamotest.Record(t, want, b)
	}
	if got := dynamotest.Scan(t, c, table); !reflect.DeepEqual(got, want) {
		t.Fatalf("the table differs from the records: %d items, %d records\nfirst difference: %s", len(got), len(want), dynamotest.FirstDiff(got, want))
	}

	// A merged record goes again, whole, under its id: its item is replaced.
	r, err := transcript.ParseLine(bodies[1002])
	if err != nil {
		t.Fatal(err)
	}
	r.Message.Contents = append(r.Message.Contents, "Sunny.")
	merged := transcript.AppendJSON(nil, &r)
	if n := put(t, c, table, merged); n != 1 {
		t.Fatalf("the server accepted %d items, want 1", n)
	}
	dynamotest.Record(t, want, merged)
	got := dynamotest.Scan(t, c, table)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the merge the table differs from the records: %s", dynamotest.FirstDiff(got, want))
	}
	if len(got) != 1003 {
		t.Fatalf("%d items, want 1003: the merge must replace its item", len(got))
	}
}

// TestItemTooLarge: the server refuses an item over 400 KB too, so
// export.AppendItem's check is no stricter than DynamoDB's.
func TestItemTooLarge(t *testing.T) {
	c := dynamotest.Client(t, dynamotest.Endpoint(t))
	table := dynamotest.CreateTable(t, c)
	item := fmt.Appendf(nil, `{"conversation":{"S":"huge"},"id":{"S":"x"},"body":{"S":%q}}`, strings.Repeat("x", 410<<10))
	w := dynamo.NewWriter(c, table)
	if err := w.Put(context.Background(), item); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(context.Background()); err == nil || w.Written != 0 {
		t.Errorf("dynalite took an item over 400 KB (%d written)", w.Written)
	}
}

// TestMissingTable: writing to a table that does not exist fails, naming it.
func TestMissingTable(t *testing.T) {
	c := dynamotest.Client(t, dynamotest.Endpoint(t))
	w := dynamo.NewWriter(c, "no-such-table")
	if err := w.Put(context.Background(), []byte(`{"conversation":{"S":"c"},"id":{"S":"x"}}`)); err != nil {
		t.Fatal(err)
	}
	var nf *types.ResourceNotFoundException
	if err := w.Flush(context.Background()); !errors.As(err, &nf) || !strings.Contains(err.Error(), "no-such-table") {
		t.Fatalf("flush to a missing table: %v, want a ResourceNotFoundException naming it", err)
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
