package transcript

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/endless"
)

func TestDecoderNamesLines(t *testing.T) {
	in := "{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"assistant\",\"content\":\"b\"}\r\n{\"role\":\"x\"}\n"
	d := NewDecoder(strings.NewReader(in))
	for range 2 {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	_, err := d.Next()
	if err == nil || !strings.HasPrefix(err.Error(), "line 4: role:") {
		t.Fatalf("err = %v, want line 4", err)
	}
}

func TestDecoderRejectsHugeLine(t *testing.T) {
	huge := `{"role":"user","content":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	in := `{"role":"user","content":"a"}` + "\n" + huge + "\n" + `{"role":"user","content":"b"}` + "\n"
	d := NewDecoder(strings.NewReader(in))
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := d.Next()
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v, want line 2 too long", err)
	}
}

// A line that never ends is refused once past the limit, not read to its
// end (which never comes).
func TestDecoderRefusesEndlessLine(t *testing.T) {
	src := &endless.Line{Max: 8 * MaxLineBytes}
	d := NewDecoder(io.MultiReader(strings.NewReader(`{"role":"user","content":"`), src))
	_, err := d.Next()
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 1 || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v, want line 1 too long", err)
	}
	if src.N > 2*MaxLineBytes {
		t.Errorf("read %d bytes of a line refused past %d", src.N, MaxLineBytes)
	}
}

func TestDecoderLastLineWithoutNewline(t *testing.T) {
	d := NewDecoder(strings.NewReader(`{"role":"user","content":"a"}`))
	if _, err := d.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("err = %v, want EOF", err)
	}
}

// TestAppendJSONMatchesEncodingJSON checks the hand-written encoder against
// encoding/json on awkward strings.

// TestDecoderCheckAppend: what an append refuses, the line named, though
// a transform may read it.
func TestDecoderCheckAppend(t *testing.T) {
	const (
		user     = `{"role":"user","content":"q"}`
		call1    = `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","name":"f","arguments":"{}"}]}`
		call2    = `{"role":"assistant","tool_calls":[{"id":"c2","name":"f","arguments":"{}"}]}`
		result1  = `{"role":"tool","tool_call_id":"c1","content":"r"}`
		result2  = `{"role":"tool","tool_call_id":"c2","content":"r"}`
		answer   = `{"role":"assistant","content":"a"}`
		summary  = `{"message":{"role":"summary","contents":["s"]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSQS"]}}`
		noIDsSum = `{"message":{"role":"summary","contents":["s"]}}`
	)
	stored := func(lines ...string) []Record {
		var recs []Record
		for _, l := range lines {
			r, err := ParseLine([]byte(l))
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
		return recs
	}
	for _, tc := range []struct {
		name   string
		before []Record
		whole  bool
		conv   string
		lines  []string
		want   string // the error, "" for none
	}{
		{name: "calls and results", whole: true, lines: []string{user, call1, result1, answer}},
		{name: "merged calls are answered in any order", whole: true, lines: []string{user, call1, call2, result2, result1}},
		{name: "a result answering no call", whole: true, lines: []string{user, answer, result1}, want: `line 3: message.tool_call_id: "c1" answers no unanswered tool call`},
		{name: "a result first", whole: true, lines: []string{result1}, want: "line 1: message.tool_call_id"},
		{name: "a call answered twice", whole: true, lines: []string{user, call1, result1, result1}, want: "line 4: message.tool_call_id"},
		{name: "a result for an earlier assistant", whole: true, lines: []string{user, call1, result1, answer, user, call2, result1}, want: "line 7:"},
		{name: "a summary closes the calls", whole: true, lines: []string{user, call1, summary, result1}, want: "line 4:"},
		{name: "the stored call is answered", before: stored(user, call1), whole: true, lines: []string{result1}},
		{name: "a stored tail without its start", before: stored(result2), lines: []string{result1, result2}},
		{name: "the stored tail's assistant decides", before: stored(call2, result2), lines: []string{result1}, want: "line 1:"},
		{name: "arguments not JSON", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"city\": Paris"}}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": want a JSON object`},
		{name: "arguments not an object", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"[1]"}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": want a JSON object`},
		{name: "arguments a number", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":42}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": want a JSON object`},
		// Issue 27 item 19: what no provider takes back is refused at append,
		// naming the line and the call.
		{name: "arguments empty", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":""}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": want a JSON object, got nothing`},
		{name: "arguments null", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":null}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": want a JSON object, got nothing`},
		{name: "arguments missing", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f"}}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": want a JSON object, got nothing`},
		{name: "arguments holding a NUL", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{\"x\":\"a\\u0000b\"}"}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": at x: contains a NUL character`},
		{name: "arguments holding a lone surrogate", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{\"x\":[\"\\ud800\"]}"}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": at x[0]: lone UTF-16 surrogate`},
		{name: "arguments with a key twice", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{\"x\":{\"k\":1,\"k\":2}}"}]}`},
			want: `line 2: message.tool_calls[0].arguments: tool call "a": at x.k: key given twice`},
		{name: "arguments with a key twice, as an object", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":{"k":1,"k":2}}]}`},
			want: `line 2: tool_calls[0].arguments.k: key given twice`},
		{name: "the second call's arguments", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{}"},{"id":"b","name":"f","arguments":"{\"x\":1} x"}]}`},
			want: `line 2: message.tool_calls[1].arguments: tool call "b": want a JSON object`},
		{name: "arguments: keys differing in case, a surrogate pair, an escaped backslash", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":"{\"k\":1,\"K\":\"\\ud83d\\ude00 \\\\u0000\"}"}]}`}},
		// An interrupted call: a user turn may come before its result, and
		// the result may still follow it; after the next assistant record
		// it answers nothing.
		{name: "an interrupted call", whole: true, lines: []string{user, call1, user, answer}},
		{name: "a result after the user turn", whole: true, lines: []string{user, call1, user, result1, answer}},
		{name: "a result after the next answer", whole: true, lines: []string{user, call1, user, answer, result1}, want: "line 5: message.tool_call_id"},
		{name: "arguments an object, with spaces", whole: true, lines: []string{user, `{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":" {\"x\": [1, 2]} "}]}`}},
		{name: "a summary without ids", whole: true, lines: []string{user, noIDsSum}, want: "line 2: metadata.summaryIds: a summary record needs the ids"},
		{name: "another conversation, no one told", whole: true, conv: "here", lines: []string{user, `{"conversation":"there","role":"user","content":"x"}`},
			want: `line 2: conversation: the record belongs to "there", not to "here"`},
		{name: "the same conversation", whole: true, conv: "here", lines: []string{`{"conversation":"here","role":"user","content":"x"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(strings.Join(tc.lines, "\n")))
			d.Conversation = tc.conv
			d.CheckAppend(tc.before, tc.whole)
			var err error
			for err == nil {
				_, err = d.Next()
			}
			if errors.Is(err, io.EOF) {
				err = nil
			}
			var ie *InputError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("err = %v", err)
			case tc.want != "" && (!errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// Without CheckAppend (render, export), the same lines are read.
	d := NewDecoder(strings.NewReader(strings.Join([]string{user, answer, result1, noIDsSum}, "\n")))
	for {
		if _, err := d.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// TestDecoderMovesConversation: a record naming another conversation than
// the one appended to is moved, and Warn says so once per conversation.
func TestDecoderMovesConversation(t *testing.T) {
	in := `{"conversation":"a","role":"user","content":"1"}
{"conversation":"here","role":"assistant","content":"2"}
{"conversation":"a","role":"user","content":"3"}
{"conversation":"b","role":"assistant","content":"4"}`
	d := NewDecoder(strings.NewReader(in))
	d.Conversation = "here"
	var notes []string
	d.Warn = func(line int, msg string) { notes = append(notes, fmt.Sprintf("line %d: %s", line, msg)) }
	for {
		r, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || r.Conversation != "here" {
			t.Fatalf("%+v, %v", r, err)
		}
	}
	want := []string{
		`line 1: conversation "a" moved into "here", as every later record of "a"`,
		`line 4: conversation "b" moved into "here", as every later record of "b"`,
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// TestDecoderOpenAIImport: OpenAI chat messages that carry what a record
// cannot hold are read, the change said on Warn with the line: a name on
// a user or assistant message is dropped, a media part becomes a
// placeholder text naming it.
func TestDecoderOpenAIImport(t *testing.T) {
	in := `{"role":"user","name":"alice","content":"Hi"}
{"role":"assistant","name":"bot","content":"Hello"}
{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}
{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AAA=","format":"wav"}}]}
{"role":"tool","tool_call_id":"c1","name":"calc","content":"4"}`
	d := NewDecoder(strings.NewReader(in))
	var notes []string
	d.Warn = func(line int, msg string) { notes = append(notes, fmt.Sprintf("line %d: %s", line, msg)) }
	var got []string
	for {
		r, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(&r); err != nil {
			t.Errorf("%s: %v", AppendJSON(nil, &r), err)
		}
		got = append(got, fmt.Sprintf("%s %q %q", r.Message.Role, r.Message.Contents, r.Message.Name))
	}
	want := []string{
		`user ["Hi"] ""`,
		`assistant ["Hello"] ""`,
		`user ["What is this?" "[image_url part dropped]"] ""`,
		`user ["[input_audio part dropped]"] ""`,
		`tool ["4"] "calc"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantNotes := []string{
		`line 1: name "alice" dropped from the user message: only tool records carry a name`,
		`line 2: name "bot" dropped from the assistant message: only tool records carry a name`,
		`line 3: content[1]: image_url part replaced by the text "[image_url part dropped]": a record holds text only`,
		`line 4: content[0]: input_audio part replaced by the text "[input_audio part dropped]": a record holds text only`,
	}
	if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}
}
