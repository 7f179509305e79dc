package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/golden"
	"github.com/convo-cli/convo/pkg/transcript"
	"github.com/convo-cli/convo/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// sample returns testdata/records.jsonl as canonical bodies.
func sample(t testing.TB) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var bodies [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		r, err := transcript.ParseLine(sc.Bytes())
		if err != nil {
			t.Fatalf("records.jsonl line %d: %v", len(bodies)+1, err)
		}
		bodies = append(bodies, transcript.AppendJSON(nil, &r))
	}
	return bodies
}

func render(t testing.TB, f Format, opt Options, bodies [][]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	renderTo(t, &out, f, opt, bodies)
	return out.Bytes()
}

// renderTo writes bodies to out in format f.
func renderTo(t testing.TB, out io.Writer, f Format, opt Options, bodies [][]byte) {
	t.Helper()
	w, err := NewWriter(out, f, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestGolden(t *testing.T) {
	bodies := sample(t)
	ext := map[Format]string{JSONL: "jsonl", JSON: "json", Markdown: "md", DynamoDB: "dynamodb.jsonl", DynamoDBBatch: "dynamodb-batch.jsonl"}
	for _, f := range Formats {
		if f == OTel {
			continue // pkg/otel writes it, and tests it
		}
		t.Run(string(f), func(t *testing.T) {
			got := render(t, f, Options{Table: "convo"}, bodies)
			path := filepath.Join("testdata", "golden", "records."+ext[f])
			golden.Check(t, path, got, *update)
			// Every format but markdown is JSON a consumer can read.
			if f == JSON && !json.Valid(got) {
				t.Errorf("json output is not valid JSON")
			}
			if f == DynamoDB || f == DynamoDBBatch || f == JSONL {
				for i, line := range bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n")) {
					if !json.Valid(line) {
						t.Errorf("line %d is not valid JSON: %s", i+1, line)
					}
					if f != JSONL {
						continue
					}
					if err := schemas.ValidateRecord(line); err != nil {
						t.Errorf("line %d does not validate against the record schema: %v", i+1, err)
					}
				}
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	for _, f := range Formats {
		if f == OTel {
			continue // pkg/otel writes it, and tests it
		}
		got := string(render(t, f, Options{Table: "t"}, nil))
		want := ""
		if f == JSON {
			want = "[]\n"
		}
		if got != want {
			t.Errorf("%s of no records: %q, want %q", f, got, want)
		}
	}
}

// fromDynamo turns DynamoDB JSON back into plain JSON values, numbers as
// json.Number, to check the mapping loses nothing.
func fromDynamo(t *testing.T, av map[string]json.RawMessage) any {
	t.Helper()
	if len(av) != 1 {
		t.Fatalf("attribute value with %d types: %v", len(av), av)
	}
	for typ, raw := range av {
		switch typ {
		case "S":
			var s string
			json.Unmarshal(raw, &s)
			return s
		case "N":
			var s string
			json.Unmarshal(raw, &s)
			return json.Number(s)
		case "BOOL":
			var b bool
			json.Unmarshal(raw, &b)
			return b
		case "NULL":
			return nil
		case "L":
			var l []map[string]json.RawMessage
			json.Unmarshal(raw, &l)
			out := []any{}
			for _, v := range l {
				out = append(out, fromDynamo(t, v))
			}
			return out
		case "M":
			var m map[string]map[string]json.RawMessage
			json.Unmarshal(raw, &m)
			out := map[string]any{}
			for k, v := range m {
				out[k] = fromDynamo(t, v)
			}
			return out
		}
		t.Fatalf("unknown type %s", typ)
	}
	return nil
}

func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestItemRoundTrip maps every sample record to an item and back.
func TestItemRoundTrip(t *testing.T) {
	for _, body := range sample(t) {
		item, err := AppendItem(nil, body)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]map[string]json.RawMessage
		if err := json.Unmarshal(item, &m); err != nil {
			t.Fatalf("item is not JSON: %v\n%s", err, item)
		}
		got := map[string]any{}
		for k, v := range m {
			got[k] = fromDynamo(t, v)
		}
		if want := decodeNumbers(t, body); !reflect.DeepEqual(any(got), want) {
			t.Errorf("round trip differs:\n got %v\nwant %v", got, want)
		}
	}
}

func TestItemValues(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"x"}`, `{"a":{"S":"x"}}`},
		{`{"a":""}`, `{"a":{"S":""}}`},
		{`{"a":1744815823058}`, `{"a":{"N":"1744815823058"}}`},
		{`{"a":-0.000120}`, `{"a":{"N":"-0.000120"}}`},
		{`{"a":1.5E+300}`, `{"a":{"N":"1.5E+300"}}`},
		{`{"a":12345678901234567890123456789012345678}`, `{"a":{"N":"12345678901234567890123456789012345678"}}`},
		{`{"a":true,"b":false,"c":null}`, `{"a":{"BOOL":true},"b":{"BOOL":false},"c":{"NULL":true}}`},
		{`{"a":[],"b":{}}`, `{"a":{"L":[]},"b":{"M":{}}}`},
		{`{ "a" : [ 1 , { "b" : [ null ] } ] }`, `{"a":{"L":[{"N":"1"},{"M":{"b":{"L":[{"NULL":true}]}}}]}}`},
		{`{"\u00e9":"\"\\\ud83d\ude00"}`, `{"\u00e9":{"S":"\"\\\ud83d\ude00"}}`},
	}
	for _, tt := range tests {
		got, err := AppendItem(nil, []byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("AppendItem(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`[]`, `{"a":}`, `{"a":"x"`, `{"a":1 "b":2}`, `{"a":tru}`, `{"a":"\uZZZZ"}`} {
		if _, err := AppendItem(nil, []byte(bad)); err == nil {
			t.Errorf("AppendItem(%s) succeeded, want an error", bad)
		}
	}
	// 39 significant digits are more than DynamoDB keeps; trailing and
	// leading zeros do not count.
	_, err := AppendItem(nil, []byte(`{"id":"X","conversation":"c","n":123456789012345678901234567890123456789}`))
	var re *RecordError
	if !errors.As(err, &re) || re.ID != "X" || re.Conversation != "c" {
		t.Errorf("39 digits: got %v, want a RecordError naming X of c", err)
	}
	if _, err := AppendItem(nil, []byte(`{"n":0.000123456789012345678901234567890123456780000}`)); err != nil {
		t.Errorf("38 significant digits between zeros: %v", err)
	}
}

// TestItemSize checks the size DynamoDB counts, at the 400 KB boundary.
func TestItemSize(t *testing.T) {
	record := func(content string) []byte {
		r := transcript.Record{ID: "01JRZJ166HZFPP405DV1QQB2X8", Conversation: "demo",
			Message:  transcript.Message{Role: "user", Contents: []string{content}},
			Metadata: transcript.Metadata{Timing: transcript.Timing{Creation: 1744815823058}}}
		return transcript.AppendJSON(nil, &r)
	}
	// id 2+26, conversation 12+4, message 7+3+(role 4+1+4)+(contents 8+1+3+1+len),
	// metadata 8+3+(timing 1+6+3+(creation 1+8+(13+1)/2+1)).
	base := 28 + 16 + 10 + 9 + 13 + 11 + 10 + 17
	if _, err := AppendItem(nil, record(strings.Repeat("x", MaxItemBytes-base))); err != nil {
		t.Fatalf("an item of exactly %d bytes: %v", MaxItemBytes, err)
	}
	// A multi-byte character counts by its UTF-8 length, escaped or not.
	_, err := AppendItem(nil, record(strings.Repeat("x", MaxItemBytes-base-1)+"é"))
	if !errors.Is(err, ErrItemTooLarge) {
		t.Fatalf("an item of %d bytes: got %v, want ErrItemTooLarge", MaxItemBytes+1, err)
	}
	var re *RecordError
	if !errors.As(err, &re) || re.ID != "01JRZJ166HZFPP405DV1QQB2X8" || re.Conversation != "demo" ||
		!strings.Contains(err.Error(), "01JRZJ166HZFPP405DV1QQB2X8") {
		t.Fatalf("the error does not name the record: %v", err)
	}
	// Writers refuse it too, rather than cut it.
	for _, f := range []Format{DynamoDB, DynamoDBBatch} {
		w, _ := NewWriter(&bytes.Buffer{}, f, Options{Table: "t"})
		if err := w.Write(record(strings.Repeat("x", MaxItemBytes))); !errors.Is(err, ErrItemTooLarge) {
			t.Errorf("%s: got %v, want ErrItemTooLarge", f, err)
		}
	}
}

func TestBatchSplits(t *testing.T) {
	var bodies [][]byte
	for i := range 60 {
		bodies = append(bodies, []byte(fmt.Sprintf(`{"id":"%d","conversation":"c"}`, i)))
	}
	out := render(t, DynamoDBBatch, Options{Table: `my "table"`}, bodies)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("60 items: %d request bodies, want 3", len(lines))
	}
	for i, want := range []int{25, 25, 10} {
		var req map[string][]struct {
			PutRequest struct{ Item map[string]any }
		}
		if err := json.Unmarshal([]byte(lines[i]), &req); err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
		if len(req[`my "table"`]) != want {
			t.Errorf("body %d: %d items, want %d", i, len(req[`my "table"`]), want)
		}
	}
	if _, err := NewWriter(&bytes.Buffer{}, DynamoDBBatch, Options{}); err == nil {
		t.Error("dynamodb-batch without a table: no error")
	}
}

func TestParseFormat(t *testing.T) {
	if f, err := ParseFormat("markdown"); f != Markdown || err != nil {
		t.Errorf("ParseFormat(markdown) = %v, %v", f, err)
	}
	if _, err := ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), "jsonl") {
		t.Errorf("ParseFormat(xml) = %v, want an error listing the formats", err)
	}
}

// benchBodies is n records of typical size.
func benchBodies(n int) [][]byte {
	bodies := make([][]byte, n)
	ids := transcript.NewIDs()
	for i := range bodies {
		r := transcript.Record{ID: ids.New(1744815823058), Conversation: "bench",
			Message: transcript.Message{Role: "user", Contents: []string{
				fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog, and then asks how the weather is in Paris today.", i)}},
			Metadata: transcript.Metadata{Timing: transcript.Timing{Creation: 1744815823058 + int64(i)},
				Aux: map[string]json.RawMessage{"score": json.RawMessage("0.75"), "tags": json.RawMessage(`["a","b"]`)}}}
		bodies[i] = transcript.AppendJSON(nil, &r)
	}
	return bodies
}

func benchFormat(b *testing.B, f Format) {
	bodies := benchBodies(1000)
	n := 0
	for _, body := range bodies {
		n += len(body)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		w, _ := NewWriter(discard{}, f, Options{Table: "t"})
		for _, body := range bodies {
			if err := w.Write(body); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func BenchmarkJSONL(b *testing.B)         { benchFormat(b, JSONL) }
func BenchmarkDynamoDB(b *testing.B)      { benchFormat(b, DynamoDB) }
func BenchmarkDynamoDBBatch(b *testing.B) { benchFormat(b, DynamoDBBatch) }
func BenchmarkMarkdown(b *testing.B)      { benchFormat(b, Markdown) }

// TestItemSizeRules checks the size of values by DynamoDB's rules.
func TestItemSizeRules(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`{"ab":"xyz"}`, 2 + 3},
		{`{"a":"é"}`, 1 + 2},
		{`{"a":"\u00e9"}`, 1 + 2},                 // escaped or not, by UTF-8 length
		{`{"a":"\ud83d\ude00\n\"\\"}`, 1 + 4 + 3}, // a surrogate pair is 4 bytes, \n \" \\ one each
		{`{"a":"\ud83d"}`, 1 + 3},                 // a lone surrogate becomes U+FFFD
		{`{"a":12345}`, 1 + 3 + 1},                // (5 digits + 1) / 2 + 1
		{`{"a":-0.00100}`, 1 + 1 + 1},             // zeros around the digits do not count
		{`{"a":true,"b":null}`, 1 + 1 + 1 + 1},
		{`{"a":[]}`, 1 + 3},
		{`{"a":["x",1]}`, 1 + 3 + (1 + 1) + (1 + 2)},
		{`{"a":{"bc":"x"}}`, 1 + 3 + (1 + 2 + 1)},
	}
	for _, tt := range tests {
		c := itemConv{in: []byte(tt.in)}
		if got, err := c.object(true); err != nil || got != tt.want {
			t.Errorf("size of %s = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}
