package transcript

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixedClock returns a clock that ticks 1 ms per call, from t0.
func fixedClock(t0 int64) func() int64 {
	t := t0 - 1
	return func() int64 { t++; return t }
}

func msg(role Role, contents ...string) Record {
	return Record{Message: Message{Role: role, Contents: contents}}
}

// summaryOf is a summary record replacing ids.
func summaryOf(text string, ids ...string) Record {
	r := msg(RoleSummary, text)
	r.Metadata.SummaryIDs = ids
	return r
}

// replay appends recs in order and returns the resulting transcript.
func replay(t *testing.T, recs ...Record) []Record {
	t.Helper()
	var out []Record
	app := NewAppender("demo", nil, NewIDs(), fixedClock(1744815823057))
	index := map[string]int{}
	for _, r := range recs {
		for _, ch := range app.Append(r) {
			switch ch.Kind {
			case Inserted:
				index[ch.Record.ID] = len(out)
				out = append(out, ch.Record.Clone())
			case Merged:
				out[index[ch.Record.ID]] = ch.Record.Clone()
			}
		}
	}
	return out
}

type shape struct {
	role     Role
	contents string // joined with |
	attrs    string // joined with ,
}

func shapes(recs []Record) []shape {
	out := make([]shape, len(recs))
	for i, r := range recs {
		out[i] = shape{r.Message.Role, strings.Join(r.Message.Contents, "|"), strings.Join(r.Metadata.Attribute, ",")}
	}
	return out
}

// TestReferenceExample replays the API usage of the reference messages
// manager and checks what its debug print shows.
func TestReferenceExample(t *testing.T) {
	recs := replay(t,
		msg(RoleAssistant, "Hello!"),
		msg(RoleUser, "Hi, there"),
		msg(RoleUser, "how are you"),
		msg(RoleAssistant, "I am fine,", "and you?"),
		msg(RoleUser, "Good, ", "thank you!"),
	)
	want := []shape{
		{RoleUser, "...", "fake"},
		{RoleAssistant, "Hello!", ""},
		{RoleUser, "Hi, there|how are you", "merged"},
		{RoleAssistant, "I am fine,|and you?", ""},
		{RoleUser, "Good, |thank you!", ""},
	}
	if got := shapes(recs); !slices.Equal(got, want) {
		t.Fatalf("transcript\n got %v\nwant %v", got, want)
	}
	for i := 1; i < len(recs); i++ {
		if recs[i-1].ID >= recs[i].ID {
			t.Errorf("ids do not increase in transcript order: %s then %s", recs[i-1].ID, recs[i].ID)
		}
	}

	// getSummaryInfo: the last user record is not covered, nor the fake.
	span := SummarySpan(recs, 0)
	if got, want := CoveredIDs(recs, span), []string{recs[1].ID, recs[2].ID, recs[3].ID}; !slices.Equal(got, want) {
		t.Fatalf("covered %v, want %v", got, want)
	}
	sum := Record{ID: "01JRZJ1675E4S7Y4ZD7RNWNXWB", Message: Message{Role: RoleSummary, Contents: []string{"..."}},
		Metadata: Metadata{SummaryIDs: CoveredIDs(recs, span)}}
	recs = PlaceSummary(recs, sum, span, false)
	if recs[4].Message.Role != RoleSummary {
		t.Fatalf("summary at %v, want index 4", shapes(recs))
	}
	if FirstSent(recs) != 5 || LatestSummary(recs) != 4 {
		t.Fatalf("first sent %d, latest summary %d; want 5 and 4", FirstSent(recs), LatestSummary(recs))
	}

	// Continue: the assistant answers twice (merged), the user speaks.
	app := NewAppender("demo", &recs[5], NewIDs(), fixedClock(1744815823078))
	var changes []Change
	for _, r := range []Record{msg(RoleAssistant, "How can I help you?"), msg(RoleAssistant, "Are you still there?"), msg(RoleUser, "Yes, but I do not need help!")} {
		changes = append(changes, app.Append(r)...)
	}
	kinds := []ChangeKind{}
	for _, c := range changes {
		kinds = append(kinds, c.Kind)
	}
	if !slices.Equal(kinds, []ChangeKind{Inserted, Merged, Inserted}) {
		t.Fatalf("changes %v, want insert, merge, insert", kinds)
	}
	if got := strings.Join(changes[1].Record.Message.Contents, "|"); got != "How can I help you?|Are you still there?" {
		t.Fatalf("merged contents %q", got)
	}
	v := BuildView(append(recs, *changes[0].Record, *changes[2].Record))
	if v.Summary == nil || v.Summary.ID != sum.ID || len(v.Messages) != 3 || v.Messages[0].Message.Role != RoleUser {
		t.Fatalf("view: summary %v, messages %v", v.Summary, shapes(v.Messages))
	}
}

func TestAppenderRules(t *testing.T) {
	tool := func(id string) Record {
		r := msg(RoleTool, "result")
		r.Message.ToolCallID = id
		return r
	}
	call := func(id string) Record {
		r := Record{Message: Message{Role: RoleAssistant, Contents: []string{}, ToolCalls: []ToolCall{{ID: id, Name: "f", Arguments: "{}"}}}}
		return r
	}
	tests := []struct {
		name string
		in   []Record
		want []shape
	}{
		{"user first stays", []Record{msg(RoleUser, "a"), msg(RoleAssistant, "b")},
			[]shape{{RoleUser, "a", ""}, {RoleAssistant, "b", ""}}},
		{"two merges count twice", []Record{msg(RoleUser, "a"), msg(RoleUser, "b"), msg(RoleUser, "c")},
			[]shape{{RoleUser, "a|b|c", "merged,merged"}}},
		{"system takes no part in alternation", []Record{msg(RoleUser, "a"), msg(RoleSystem, "s"), msg(RoleUser, "b")},
			[]shape{{RoleUser, "a|b", "merged"}, {RoleSystem, "s", ""}}},
		{"system first then assistant gets a fake", []Record{msg(RoleSystem, "s"), msg(RoleAssistant, "b")},
			[]shape{{RoleSystem, "s", ""}, {RoleUser, "...", "fake"}, {RoleAssistant, "b", ""}}},
		{"tool first gets a fake", []Record{tool("c1")},
			[]shape{{RoleUser, "...", "fake"}, {RoleTool, "result", ""}}},
		{"tools never merge", []Record{msg(RoleUser, "q"), call("c1"), tool("c1"), tool("c1")},
			[]shape{{RoleUser, "q", ""}, {RoleAssistant, "", ""}, {RoleTool, "result", ""}, {RoleTool, "result", ""}}},
		{"assistant after tool does not merge", []Record{msg(RoleUser, "q"), call("c1"), tool("c1"), msg(RoleAssistant, "done")},
			[]shape{{RoleUser, "q", ""}, {RoleAssistant, "", ""}, {RoleTool, "result", ""}, {RoleAssistant, "done", ""}}},
		{"summary at the end resets: fake after it", []Record{msg(RoleUser, "q"), msg(RoleAssistant, "a"), summaryOf("s", "01JRZJ166J2WRMF990535EVSQS"), msg(RoleAssistant, "b")},
			[]shape{{RoleUser, "q", ""}, {RoleAssistant, "a", ""}, {RoleSummary, "s", ""}, {RoleUser, "...", "fake"}, {RoleAssistant, "b", ""}}},
		{"merging keeps tool calls", []Record{msg(RoleUser, "q"), msg(RoleAssistant, "a"), call("c1")},
			[]shape{{RoleUser, "q", ""}, {RoleAssistant, "a", "merged"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := replay(t, tt.in...)
			if !slices.Equal(shapes(got), tt.want) {
				t.Fatalf("\n got %v\nwant %v", shapes(got), tt.want)
			}
			for _, r := range got {
				if err := Validate(&r); err != nil {
					t.Errorf("invalid record %s: %v", AppendJSON(nil, &r), err)
				}
			}
		})
	}
}

func TestMergeMetadata(t *testing.T) {
	a := msg(RoleUser, "a")
	a.Metadata.Aux = map[string]json.RawMessage{"k": json.RawMessage(`1`), "keep": json.RawMessage(`"x"`)}
	_ = a.Metadata.Timing.Set("listenStart", 10)
	b := msg(RoleUser, "b")
	b.ID = "01JRZJ166J2WRMF990535EVSQS"
	b.Metadata.Aux = map[string]json.RawMessage{"k": json.RawMessage(`2`)}
	_ = b.Metadata.Timing.Set("listenStart", 20)
	_ = b.Metadata.Timing.Set("listenEnd", 30)
	app := NewAppender("c", nil, NewIDs(), fixedClock(100))
	first := app.Append(a)[0].Record.ID
	ch := app.Append(b)
	if len(ch) != 1 || ch[0].Kind != Merged || ch[0].Absorbed != b.ID || ch[0].Record.ID != first {
		t.Fatalf("change %+v", ch)
	}
	got := string(AppendJSON(nil, ch[0].Record))
	want := `{"id":"` + first + `","conversation":"c","message":{"role":"user","contents":["a","b"]},"metadata":{"attribute":["merged"],"timing":{"creation":100,"listenStart":10,"listenEnd":30},"aux":{"k":2,"keep":"x"}}}`
	if got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestSummarySpan(t *testing.T) {
	// Records are described by a compact code: U user, A assistant, C
	// assistant with a tool call (id by position), T tool result answering
	// the previous C, F fake user, S system, Z summary.
	build := func(code string) []Record {
		var recs []Record
		lastCall := ""
		for i, c := range code {
			r := Record{ID: string(rune('a' + i))}
			switch c {
			case 'U':
				r.Message = Message{Role: RoleUser, Contents: []string{"u"}}
			case 'F':
				r.Message = Message{Role: RoleUser, Contents: []string{FakeContent}}
				r.Metadata.Attribute = []string{AttrFake}
			case 'A':
				r.Message = Message{Role: RoleAssistant, Contents: []string{"a"}}
			case 'C':
				lastCall = "call" + r.ID
				r.Message = Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: lastCall, Name: "f"}}}
			case 'T':
				r.Message = Message{Role: RoleTool, Contents: []string{"t"}, ToolCallID: lastCall}
			case 'S':
				r.Message = Message{Role: RoleSystem, Contents: []string{"s"}}
			case 'Z':
				r.Message = Message{Role: RoleSummary, Contents: []string{"z"}}
			}
			recs = append(recs, r)
		}
		return recs
	}
	tests := []struct {
		name     string
		code     string
		keepLast int
		covered  string // ids of covered records
		anchor   int
	}{
		{"reference example", "FAUAU", 0, "bcd", 3},
		{"keep last turn", "UAUAUA", 1, "abcd", 3},
		{"keep two turns", "UAUAUA", 2, "ab", 1},
		{"keep-last larger than the conversation", "UAUA", 4, "", -1},
		{"keep-last equal to the turns", "UAUA", 2, "", -1},
		{"unanswered user is no turn", "UAUAU", 1, "ab", 1},
		{"only an unanswered user", "U", 0, "", -1},
		{"system never covered", "SUAUA", 1, "bc", 2},
		{"previous summary included", "UAZUAUA", 1, "cde", 4},
		{"only the previous summary", "UAZUA", 1, "", -1},
		{"tool call kept with its result", "UCTAUA", 1, "abcd", 3},
		{"result not arrived: cut before the call's turn", "UAUCUA", 0, "ab", 1},
		{"call whose result lies past the cut moves the cut back", "UAUCUTA", 1, "ab", 1},
		{"fakes never covered", "FAUA", 0, "bcd", 3},
		{"everything after the summary kept", "UAZ", 0, "", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := build(tt.code)
			s := SummarySpan(recs, tt.keepLast)
			if got := strings.Join(CoveredIDs(recs, s), ""); got != tt.covered || s.Anchor != tt.anchor {
				t.Fatalf("covered %q anchor %d, want %q anchor %d", got, s.Anchor, tt.covered, tt.anchor)
			}
			if s.Empty() != (tt.covered == "") {
				t.Fatalf("Empty() = %v", s.Empty())
			}
			if s.Empty() {
				return
			}
			placed := PlaceSummary(recs, Record{ID: "Z", Message: Message{Role: RoleSummary, Contents: []string{"sum"}}}, s, false)
			// Rule 2 after placing: the first record after the summary is a user's.
			if i := FirstSent(placed); i >= 0 && placed[i].Message.Role != RoleUser {
				t.Fatalf("first sent after summary is %s", placed[i].Message.Role)
			}
			deleted := PlaceSummary(recs, Record{ID: "Z", Message: Message{Role: RoleSummary}}, s, true)
			if len(deleted) != len(recs)+1-len(s.Covered) {
				t.Fatalf("deleting covered left %d records", len(deleted))
			}
		})
	}
}

// AppendStream applies the rules to stdin's transcript and the new record,
// and annotates what it reads only when no record is added.
func TestAppendStream(t *testing.T) {
	in := `{"role":"assistant","content":"Hello!"}` + "\n" + `{"role":"user","content":"Hi"}` + "\n"
	an := &Annotation{Timing: map[string]int64{"playEnd": 9}}
	var out strings.Builder
	add := msg(RoleUser, "again")
	if err := AppendStream(NewDecoder(strings.NewReader(in)), &out, &add, an, NewIDs(), fixedClock(100)); err != nil {
		t.Fatal(err)
	}
	var got []shape
	dec := NewDecoder(strings.NewReader(out.String()))
	for r, err := dec.Next(); err == nil; r, err = dec.Next() {
		got = append(got, shapes([]Record{r})...)
		if r.Metadata.Timing.PlayEnd != nil {
			t.Errorf("annotated while adding a record: %+v", r)
		}
	}
	want := []shape{{RoleUser, "...", "fake"}, {RoleAssistant, "Hello!", ""}, {RoleUser, "Hi|again", "merged"}}
	if !slices.Equal(got, want) {
		t.Fatalf("\n got %v\nwant %v", got, want)
	}

	out.Reset()
	if err := AppendStream(NewDecoder(strings.NewReader(in)), &out, nil, an, NewIDs(), fixedClock(100)); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), `"playEnd":9`) != 2 {
		t.Errorf("not annotated:\n%s", out.String())
	}
	out.Reset()
	if err := AppendStream(nil, &out, &add, nil, NewIDs(), fixedClock(100)); err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("no stdin: %v\n%s", err, out.String())
	}
	err := AppendStream(NewDecoder(strings.NewReader("{\n")), &out, nil, nil, NewIDs(), fixedClock(100))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 1 {
		t.Errorf("bad line: %v", err)
	}
}

// TestPlaceholderIDDerived: a placeholder before a record that carries
// its id takes an id derived from it, the same in every store and on
// every append, sorting right before it; before a record without one,
// a fresh id.
func TestPlaceholderIDDerived(t *testing.T) {
	r := Record{ID: SourceID(time.UnixMilli(1_700_000_000_000), "codex", "s", "7"),
		Message: Message{Role: RoleAssistant, Contents: []string{"hi"}}}
	var got []string
	for range 2 {
		a := NewAppender("c", nil, NewIDs(), func() int64 { return time.Now().UnixMilli() })
		ch := a.Append(r)
		if len(ch) != 2 || !ch[0].Record.IsFake() {
			t.Fatalf("changes %+v: want a placeholder then the record", ch)
		}
		got = append(got, ch[0].Record.ID)
		if ch[0].Record.ID >= ch[1].Record.ID {
			t.Fatalf("placeholder %s does not sort before %s", ch[0].Record.ID, ch[1].Record.ID)
		}
		if err := Validate(ch[0].Record); err != nil {
			t.Fatal(err)
		}
	}
	if got[0] != got[1] {
		t.Fatalf("placeholder ids %s and %s: want the same", got[0], got[1])
	}
	if got[0][:10] != r.ID[:10] {
		t.Fatalf("placeholder %s: want the time part of %s", got[0], r.ID)
	}
	// Another record, another placeholder id.
	r2 := r
	r2.ID = SourceID(time.UnixMilli(1_700_000_000_000), "codex", "s", "8")
	ch := NewAppender("c", nil, NewIDs(), func() int64 { return 0 }).Append(r2)
	if ch[0].Record.ID == got[0] {
		t.Fatal("two records, one placeholder id")
	}
}
