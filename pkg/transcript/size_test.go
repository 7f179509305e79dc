package transcript

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// encodedSize is what RecordSize must say: the bytes AppendJSON spends on
// r's message, attribute and aux.
func encodedSize(r *Record) int {
	n := len(appendMessage(nil, &r.Message))
	if len(r.Metadata.Attribute) > 0 {
		n += len(appendStrings(nil, r.Metadata.Attribute))
	}
	if len(r.Metadata.Aux) > 0 {
		n += len(appendAux(nil, r.Metadata.Aux))
	}
	return n
}

// sizeSamples are records whose every part costs something to write.
func sizeSamples() []Record {
	return []Record{
		{Message: Message{Role: RoleUser, Contents: []string{}}},
		{Message: Message{Role: RoleUser, Contents: []string{"", "plain"}}},
		{Message: Message{Role: RoleUser, Contents: []string{"quote \" back \\ nl \n cr \r tab \t bell \x07 del \x7f <&>"}}},
		{Message: Message{Role: RoleUser, Contents: []string{"é 😀 \u2028 \u2029 bad \xff\xfe end"}}},
		{Message: Message{Role: RoleAssistant, Contents: []string{"a"}, ToolCalls: []ToolCall{
			{ID: "c1", Name: "f", Arguments: `{"x":"y\n"}`}, {ID: "c2", Name: "g", Arguments: ""}},
			ProviderData: []ProviderItem{{Provider: "openai", At: 0, Item: json.RawMessage(`{"a":1}`)}, {Provider: "gemini", At: 12345, Item: json.RawMessage(`{}`), Replaces: true}}},
			Metadata: Metadata{Attribute: []string{AttrMerged, AttrMerged}, Aux: map[string]json.RawMessage{"k": json.RawMessage(`[1,{"b":null}]`), "é\n": json.RawMessage(`"v"`)}}},
		{Message: Message{Role: RoleTool, Contents: []string{"r"}, ToolCallID: "c1", Name: "f", IsError: true},
			Metadata: Metadata{Attribute: []string{AttrFake}, SummaryIDs: []string{"01JRZJ166J2WRMF990535EVSQS"}, Timing: Timing{Creation: 5}}},
	}
}

func TestRecordSizeMatchesEncoding(t *testing.T) {
	for i, r := range sizeSamples() {
		if got, want := RecordSize(&r), encodedSize(&r); got != want {
			t.Errorf("sample %d: RecordSize %d, encoded %d: %s", i, got, want, AppendJSON(nil, &r))
		}
	}
}

// TestMergeDeltaMatchesMerge: what a merge adds, reckoned without merging,
// is what merging adds.
func TestMergeDeltaMatchesMerge(t *testing.T) {
	samples := sizeSamples()
	for i := range samples {
		for j := range samples {
			host, in := samples[i].Clone(), samples[j].Clone()
			in.Message.Role = host.Message.Role
			checkMergeDelta(t, &host, &in)
		}
	}
}

func checkMergeDelta(t *testing.T, host, in *Record) {
	t.Helper()
	merged := host.Clone()
	mergeInto(&merged, in)
	if got, want := RecordSize(host)+mergeDelta(host, in), RecordSize(&merged); got != want {
		t.Fatalf("merge of %s into %s: reckoned %d, merged %d", AppendJSON(nil, in), AppendJSON(nil, host), got, want)
	}
}

// FuzzMergeSize: for any two records read, the size reckoned for their
// merge is the size of the merge.
func FuzzMergeSize(f *testing.F) {
	f.Add(`{"role":"user","content":"a"}`, `{"role":"user","contents":["b","c"]}`)
	f.Add(`{"message":{"role":"assistant","contents":["x"],"tool_calls":[{"id":"a","name":"f","arguments":"{}"}],"provider_data":[{"provider":"openai","at":1,"item":{"k":1}}]},"metadata":{"attribute":["merged"],"aux":{"a":1,"b":"\u2028"}}}`,
		`{"message":{"role":"assistant","contents":["y"],"tool_calls":[{"id":"b","name":"g","arguments":"{\"q\":\"\\n\"}"}],"provider_data":[{"provider":"gemini","at":0,"item":{}},{"provider":"gemini","at":2,"item":{},"replaces":true}]},"metadata":{"attribute":["merged","merged"],"aux":{"a":[1,2,3],"c":null}}}`)
	f.Add(`{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{}"}]}`, `{"role":"assistant","content":"z"}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		host, err1 := ParseLine([]byte(a))
		in, err2 := ParseLine([]byte(b))
		if err1 != nil || err2 != nil {
			return
		}
		in.Message.Role = host.Message.Role
		checkMergeDelta(t, &host, &in)
	})
}

// TestAppenderSizeFollowsMerges: TryAppend keeps the open record's size
// exact through merges, so the limit holds to the byte.
func TestAppenderSizeFollowsMerges(t *testing.T) {
	app := NewAppender("c", nil, NewIDs(), fixedClock(1))
	chunk := strings.Repeat("z", 1<<20)
	var open *Record
	for i := range 3 {
		changes, err := app.TryAppend(Record{Message: Message{Role: RoleUser, Contents: []string{chunk}}, Metadata: Metadata{Aux: map[string]json.RawMessage{"n": json.RawMessage(`1`)}}})
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		open = changes[len(changes)-1].Record
		if app.openSize != RecordSize(open) {
			t.Fatalf("append %d: followed size %d, record %d", i, app.openSize, RecordSize(open))
		}
	}
	// Fill up to the byte the limit allows: one more byte is refused.
	room := MaxRecordBytes - app.openSize - len(`,""`) - len(`,"merged"`)
	last := Record{Message: Message{Role: RoleUser, Contents: []string{strings.Repeat("w", room)}}}
	over := last.Clone()
	over.Message.Contents[0] += "w"
	var ie *InputError
	if _, err := app.TryAppend(over); !errors.As(err, &ie) || ie.Field != "message" {
		t.Fatalf("one byte over: err = %v, want the merge refused", err)
	}
	if RecordSize(open) != app.openSize {
		t.Fatal("a refused merge changed the open record")
	}
	if _, err := app.TryAppend(last); err != nil {
		t.Fatalf("up to the limit: %v", err)
	}
	if RecordSize(open) != MaxRecordBytes {
		t.Fatalf("size %d, want exactly %d", RecordSize(open), MaxRecordBytes)
	}
}

// TestLineMeter: only the ids of a record's metadata.summaryIds go
// uncounted.
func TestLineMeter(t *testing.T) {
	for _, tc := range []struct {
		line   string
		ignore string // the part not counted
	}{
		{`{"message":{"role":"summary","contents":["s"]},"metadata":{"summaryIds":["A","B"],"timing":{"creation":1}}}`, `"A","B"]`},
		{`{"metadata":{"aux":{"x":1},"summaryIds":[ "A" , "B" ]},"message":{}}`, ` "A" , "B" ]`},
		{`{"message":{"role":"summary","contents":["\"metadata\":{\"summaryIds\":[1,2]}"]}}`, ``},
		{`{"metadata":{"aux":{"summaryIds":["A"]}}}`, ``},
		{`{"meta":{"summaryIds":["A"]},"x":["metadata",{"summaryIds":["B"]}]}`, ``},
		{`[{"metadata":{"summaryIds":["A"]}}]`, ``},
	} {
		var m lineMeter
		m.feed([]byte(tc.line))
		if want := len(tc.line) - len(tc.ignore); m.counted != want {
			t.Errorf("%s: counted %d, want %d", tc.line, m.counted, want)
		}
		// Fed byte by byte, as it may arrive.
		var p lineMeter
		for i := range len(tc.line) {
			p.feed([]byte{tc.line[i]})
		}
		if p.counted != m.counted {
			t.Errorf("%s: fed in pieces, counted %d, want %d", tc.line, p.counted, m.counted)
		}
	}
}

// FuzzLineMeter: the meter counts the same however the line arrives, and
// never more than the line.
func FuzzLineMeter(f *testing.F) {
	f.Add([]byte(`{"id":"x","metadata":{"summaryIds":["A","B"],"timing":{"creation":1}}}`), uint(20))
	f.Add([]byte(`{"metadata":{"aux":{"summaryIds":["\"]"]}},"message":{"contents":["\\\""]}}`), uint(7))
	f.Fuzz(func(t *testing.T, line []byte, cut uint) {
		var whole, parts lineMeter
		whole.feed(line)
		k := int(cut % uint(len(line)+1))
		parts.feed(line[:k])
		parts.feed(line[k:])
		if whole.counted != parts.counted || whole.counted > len(line) {
			t.Fatalf("counted %d whole, %d in two parts at %d, of %d bytes", whole.counted, parts.counted, k, len(line))
		}
	})
}
