package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/convo-cli/convo/schemas"
)

func TestParseLineForms(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"canonical record",
			`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"demo","message":{"role":"user","contents":["Hi, there","how are you"]},"metadata":{"attribute":["merged"],"timing":{"creation":1744815823058}}}`,
			`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"demo","message":{"role":"user","contents":["Hi, there","how are you"]},"metadata":{"attribute":["merged"],"timing":{"creation":1744815823058}}}`},
		{"bare message", `{"role":"user","contents":["a","b"]}`,
			`{"id":"","conversation":"","message":{"role":"user","contents":["a","b"]},"metadata":{"timing":{"creation":0}}}`},
		{"content string", `{"role":"assistant","content":"hi"}`,
			`{"id":"","conversation":"","message":{"role":"assistant","contents":["hi"]},"metadata":{"timing":{"creation":0}}}`},
		{"openai text parts", `{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`,
			`{"id":"","conversation":"","message":{"role":"user","contents":["a","b"]},"metadata":{"timing":{"creation":0}}}`},
		{"openai tool call, null content", `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]}`,
			`{"id":"","conversation":"","message":{"role":"assistant","contents":[],"tool_calls":[{"id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}"}]},"metadata":{"timing":{"creation":0}}}`},
		{"arguments as an object kept byte for byte", `{"role":"assistant","tool_calls":[{"id":"c","name":"f","arguments":{"b":1, "a":2}}]}`,
			`{"id":"","conversation":"","message":{"role":"assistant","contents":[],"tool_calls":[{"id":"c","name":"f","arguments":"{\"b\":1, \"a\":2}"}]},"metadata":{"timing":{"creation":0}}}`},
		{"openai tool result", `{"role":"tool","tool_call_id":"call_1","content":"sunny"}`,
			`{"id":"","conversation":"","message":{"role":"tool","contents":["sunny"],"tool_call_id":"call_1"},"metadata":{"timing":{"creation":0}}}`},
		{"developer is system", `{"role":"developer","content":"be brief"}`,
			`{"id":"","conversation":"","message":{"role":"system","contents":["be brief"]},"metadata":{"timing":{"creation":0}}}`},
		{"lowercase id made canonical", `{"id":"01jrzj166j2wrmf990535evsqs","message":{"role":"user","contents":["x"]}}`,
			`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"","message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":0}}}`},
		{"aux compacted, numbers exact", `{"message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":5,"playEnd":7},"aux":{"n": 12345678901234567890.5, "l":[1, {"m":null}]}}}`,
			`{"id":"","conversation":"","message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":5,"playEnd":7},"aux":{"l":[1,{"m":null}],"n":12345678901234567890.5}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseLine([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(AppendJSON(nil, &r)); got != tt.want {
				t.Fatalf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseLineRejects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"malformed JSON", `{"role":"user",`, "invalid JSON"},
		{"not an object", `[1,2]`, "want a JSON object"},
		{"unknown role", `{"role":"robot","content":"x"}`, `role: unknown role "robot"`},
		{"missing role", `{"content":"x"}`, "role: missing role"},
		{"empty contents", `{"role":"user","contents":[]}`, "message.contents: empty"},
		{"empty content string", `{"role":"user","content":""}`, "message.contents: empty"},
		{"tool without call id", `{"role":"tool","content":"x"}`, "message.tool_call_id"},
		{"tool call on a user", `{"role":"user","content":"x","tool_calls":[{"id":"a","name":"f","arguments":"{}"}]}`, "only assistant records carry tool calls"},
		{"tool call without name", `{"role":"assistant","tool_calls":[{"id":"a","arguments":"{}"}]}`, "tool_calls[0].name"},
		{"bad id", `{"id":"xyz","message":{"role":"user","contents":["x"]}}`, `id: "XYZ" is not a ULID`},
		{"NUL byte", "{\"role\":\"user\",\"content\":\"a\x00\"}", "NUL byte at column 28"},
		{"escaped NUL", `{"role":"user","content":"a\u0000"}`, "contains a NUL character"},
		{"invalid UTF-8", "{\"role\":\"user\",\"content\":\"\xff\"}", "invalid UTF-8 at column 27"},
		{"unknown part", `{"role":"user","content":[{"type":"hologram","hologram":{"url":"x"}}]}`, "content[0]: only text parts"},
		{"an openai response body", `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"message":{"role":"assistant","content":"Hi"}}]}`, "a whole openai response body, not a message: append it with 'convo append --from openai'"},
		{"a gemini response body", `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}]}`, "convo append --from gemini"},
		{"an anthropic response body", `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn"}`, "convo append --from anthropic"},
		{"unknown timing key", `{"message":{"role":"user","contents":["x"]},"metadata":{"timing":{"nope":1}}}`, "metadata.timing.nope: unknown timing key"},
		{"fractional timing", `{"message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":1.5}}}`, "metadata.timing.creation: want whole milliseconds"},
		{"aux not an object", `{"message":{"role":"user","contents":["x"]},"metadata":{"aux":[1]}}`, "metadata.aux: want a JSON object"},
		{"unknown attribute", `{"message":{"role":"user","contents":["x"]},"metadata":{"attribute":["odd"]}}`, `unknown attribute "odd"`},
		{"summaryIds off a summary", `{"message":{"role":"user","contents":["x"]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSQS"]}}`, "only summary records"},
		{"role beside message", `{"role":"user","message":{"role":"user","contents":["x"]}}`, "give the role inside message"},
		{"long conversation", `{"conversation":"` + strings.Repeat("c", 257) + `","role":"user","content":"x"}`, "conversation: longer than 256 bytes"},
		// Nothing read is changed silently (issue 12): the last of two keys
		// would win, a lone surrogate would become U+FFFD.
		{"duplicate key", `{"role":"user","role":"assistant","content":"x"}`, `role: key given twice`},
		{"duplicate key in another case", `{"message":{"role":"user","contents":["x"],"Contents":["y"]}}`, `message.Contents: key given twice`},
		{"duplicate aux key", `{"message":{"role":"user","contents":["x"]},"metadata":{"aux":{"k":{"a":1,"a":2}}}}`, `metadata.aux.k.a: key given twice`},
		{"duplicate timing key", `{"message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":1,"creation":2}}}`, `metadata.timing.creation: key given twice`},
		{"lone high surrogate", `{"role":"user","content":"a\ud800b"}`, `content: lone UTF-16 surrogate \ud800`},
		{"lone low surrogate", `{"role":"user","contents":["ok","\udc00"]}`, `contents[1]: lone UTF-16 surrogate \udc00`},
		{"high surrogate before a letter", `{"role":"user","content":"\ud83d\u0041"}`, `lone UTF-16 surrogate \ud83d`},
		{"surrogate in aux", `{"message":{"role":"user","contents":["x"]},"metadata":{"aux":{"k":"\uDFFF"}}}`, `metadata.aux.k: lone UTF-16 surrogate`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLine([]byte(tt.in))
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want an *InputError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestParseLineStrictAccepts: what the strict checks must leave alone.
func TestParseLineStrictAccepts(t *testing.T) {
	for _, in := range []string{
		`{"role":"user","content":"\ud83d\ude00 a pair is one character"}`,
		`{"message":{"role":"user","contents":["x"]},"metadata":{"aux":{"A":1,"a":2}}}`,
		`{"message":{"role":"user","contents":["x"]},"metadata":{"aux":{"k":[{"a":1},{"a":2}]}}}`,
		`{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":" {\"x\": [1, 2]} "}]}`,
		`{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":{"x":1}}]}`,
		`{"role":"assistant","tool_calls":[{"id":"a","name":"f","arguments":""}]}`,
		`{"role":"user","content":"key \"role\" twice: \"role\""}`,
		`{"message":{"role":"summary","contents":["s"]}}`, // read for render; an append refuses it
	} {
		if _, err := ParseLine([]byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi"}`,
		`{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"demo","message":{"role":"user","contents":["Hi, there","how are you"]},"metadata":{"attribute":["merged"],"timing":{"creation":1744815823058}}}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"x"}]}`,
		`{"message":{"role":"summary","contents":["s"]},"metadata":{"summaryIds":["01JRZJ166J2WRMF990535EVSQS"],"aux":{"a":[1,{"b":null}]}}}`,
		"\xff", `{"role":"user","content":"\u2028"}`,
		`{"message":{"role":"user","contents":["x"]},"metadata":{"timing":{"creation":1,"llmStart":-100}}}`,
		`{"role":"assistant","content":"x","refusal":"no","meta":{"aux":1}}`,
		`{"message":{"role":"user","contents":["x"]},"meta":{"aux":{"k":1}}}`,
		`[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`,
		`{"model":"m","messages":[{"role":"user","content":"a"}]}`,
		"{\n \"role\": \"user\",\n \"content\": \"a\"\n}",
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"role":"user","content":"plain text"}`))
	f.Add([]byte(`{"role":"assistant","content":"a \"quoted\" word"}  `))
	f.Fuzz(func(t *testing.T, line []byte) {
		// parseBare's precondition, checked by parseLine before it.
		if fast, ok := parseBare(line); ok && utf8.Valid(line) {
			slow, err := parseAny(line, nil)
			if err != nil || !bytes.Equal(AppendJSON(nil, &fast), AppendJSON(nil, &slow)) {
				t.Fatalf("fast path disagrees on %q: %s vs %s (%v)", line, AppendJSON(nil, &fast), AppendJSON(nil, &slow), err)
			}
		}
		r, err := ParseLine(line)
		// The same as a document (pretty-printed, in an array): the same
		// record, or an *InputError.
		for _, doc := range documentForms(line) {
			got, _, derr := readDocument(doc)
			var ie *InputError
			switch {
			case derr != nil && !errors.As(derr, &ie):
				t.Fatalf("document %q: error %v is not an *InputError", doc, derr)
			case err == nil && isDocumentStart(line):
				// A request body: its messages are read instead.
			case err == nil && (derr != nil || len(got) != 1 || got[0] != string(AppendJSON(nil, &r))):
				t.Fatalf("document %q: read %q (%v), the line %s", doc, got, derr, AppendJSON(nil, &r))
			}
		}
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		out := AppendJSON(nil, &r)
		if !utf8.Valid(out) || !json.Valid(out) {
			t.Fatalf("canonical form is not valid JSON: %s", out)
		}
		if got, want := RecordSize(&r), encodedSize(&r); got != want || got > MaxRecordBytes {
			t.Fatalf("RecordSize %d, encoded %d (limit %d): %s", got, want, MaxRecordBytes, out)
		}
		// The line limit counts all of the canonical line but the ids.
		var m lineMeter
		m.feed(out)
		ids := 0
		if len(r.Metadata.SummaryIDs) > 0 {
			ids = len(appendStrings(nil, r.Metadata.SummaryIDs)) - 1 // all but its '['
		}
		if m.counted != len(out)-ids {
			t.Fatalf("line meter counted %d of %d bytes, %d of them ids: %s", m.counted, len(out), ids, out)
		}
		// What is read, filled in as the appender fills it, is what the
		// record schema takes (a summary without ids is read for render
		// only: an append refuses it).
		if r.Message.Role != RoleSummary || len(r.Metadata.SummaryIDs) > 0 {
			filled := r.Clone()
			if filled.ID == "" {
				filled.ID = "01JRZJ166J2WRMF990535EVSQS"
			}
			if filled.Conversation == "" {
				filled.Conversation = DefaultConversation
			}
			if filled.Metadata.Timing.Creation == 0 {
				filled.Metadata.Timing.Creation = 1
			}
			if err := schemas.ValidateRecord(AppendJSON(nil, &filled)); err != nil {
				t.Fatalf("%s does not validate against the record schema: %v", AppendJSON(nil, &filled), err)
			}
		}
		back, err := ParseLine(out)
		if err != nil {
			t.Fatalf("canonical form %s does not parse: %v", out, err)
		}
		if again := AppendJSON(nil, &back); !bytes.Equal(again, out) {
			t.Fatalf("round trip changed the record:\n%s\n%s", out, again)
		}
	})
}

func BenchmarkParseLine(b *testing.B) {
	for _, tc := range []struct{ name, line string }{
		{"bare", `{"role":"user","content":"message 1: the quick brown fox jumps over the lazy dog, again and again."}`},
		{"canonical", `{"id":"01JRZJ166J2WRMF990535EVSQS","conversation":"demo","message":{"role":"user","contents":["Hi, there","how are you"]},"metadata":{"attribute":["merged"],"timing":{"creation":1744815823058}}}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			line := []byte(tc.line)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseLine(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The first byte that is no part of a valid sequence, past a valid U+FFFD
// written out; len when every byte is.
func TestInvalidUTF8At(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"héllo", 6},
		{"\xff", 0},
		{"ab\xffcd", 2},
		{"\uFFFDx\xc3", 4}, // the replacement character itself is valid
		{"é\xe2\x82", 2},   // a sequence cut short
	} {
		if got := InvalidUTF8At([]byte(tc.s)); got != tc.want {
			t.Errorf("InvalidUTF8At(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}
