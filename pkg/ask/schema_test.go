package ask

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store"
)

func TestNewSchema(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string // the name, or a substring of the error
		ok         bool
	}{
		{"city", citySchema, "City", true},
		{"city", `{"type":"object"}`, "city", true},
		{"my schema!", `{"type":"object"}`, "my_schema", true},
		{"x", `{"type": 12}`, "not a valid JSON Schema", false},
		{"x", `{"type": "object",`, "not JSON", false},
		{"x", `[1]`, "not a JSON Schema object", false},
		{"x", `{"$ref": "https://example.com/other.json"}`, "not a valid JSON Schema", false},
	} {
		sch, err := NewSchema(tc.name, []byte(tc.body))
		switch {
		case tc.ok && (err != nil || sch.Name != tc.want || string(sch.Body) != tc.body):
			t.Errorf("%s: %v %+v, want name %q", tc.body, err, sch, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
	for path, want := range map[string]string{"dir/city.schema.json": "city", "answer.json": "answer", "plain": "plain"} {
		if got := FileSchemaName(path); got != want {
			t.Errorf("FileSchemaName(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestRunStoredSchema: a stored schema makes every turn structured, a
// turn's own schema replaces it, NoSchema skips it, and a corrupt one is
// an error naming the conversation.
func TestRunStoredSchema(t *testing.T) {
	p := providers[0]
	e := newEnv(t, p, llm.Options{}, step{Answer: &answer{Text: "Paris."}})
	ctx := context.Background()
	sch := mustSchema(t, "city", citySchema)
	if err := e.s.SetSchema(ctx, "c", store.ConversationSchema{Name: sch.Name, Body: sch.Body}); err != nil {
		t.Fatal(err)
	}
	_, err := e.run(e.turn("Where?"))
	if err == nil || !strings.Contains(err.Error(), "not JSON, so it does not match the schema City") {
		t.Fatalf("stored schema not applied: %v", err)
	}
	if p.schemaSent(e.srv.Requests()[0].Body) == nil {
		t.Fatalf("stored schema not sent: %s", e.srv.Requests()[0].Raw)
	}
	own := e.turn("Where?")
	own.Schema = mustSchema(t, "loose", `{"title":"Loose"}`)
	if _, err := e.run(own); err == nil || !strings.Contains(err.Error(), "schema Loose") {
		t.Fatalf("own schema: %v", err)
	}
	if sent := p.schemaSent(e.srv.Requests()[1].Body); dig(sent, "title") != "Loose" {
		t.Fatalf("own schema not sent: %s", e.srv.Requests()[1].Raw)
	}
	none := e.turn("Where?")
	none.NoSchema = true
	if res, err := e.run(none); err != nil || res.Answer.Metadata.Aux["schema"] != nil {
		t.Fatalf("NoSchema: %v %+v", err, res)
	}
	if p.schemaSent(e.srv.Requests()[2].Body) != nil {
		t.Fatalf("NoSchema sent a schema: %s", e.srv.Requests()[2].Raw)
	}
	if err := e.s.SetSchema(ctx, "c", store.ConversationSchema{Name: "bad", Body: []byte(`{"type":12}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(e.turn("Where?")); err == nil || !strings.Contains(err.Error(), `stored schema of "c"`) || len(e.srv.Requests()) != 3 {
		t.Fatalf("corrupt stored schema: %v", err)
	}
	if _, err := e.s.Clear(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(e.turn("Where?")); err != nil {
		t.Fatalf("schema survived clear: %v", err)
	}
}

// A tool-call answer is not checked against the schema: the structured
// answer comes after the tools ran. A fenced JSON answer is read inside
// its fence.
func TestRunSchemaToolCallsAndFence(t *testing.T) {
	p := providers[0]
	e := newEnv(t, p, llm.Options{}, step{Answer: &answer{Calls: []tcall{{ID: "call_1", Name: "get_weather", Args: `{"location":"Paris"}`}}}},
		step{Answer: &answer{Text: "```json\n{\"city\":\"Paris\",\"population\":1}\n```"}})
	turn := e.turn("Weather, then the city?")
	turn.Request.Tools, turn.Schema = weatherTools, mustSchema(t, "city", citySchema)
	var res Result
	for i := range 2 {
		var err error
		if res, err = e.run(turn); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if i == 0 && len(res.Answer.Message.ToolCalls) != 1 {
			t.Fatalf("first answer: %+v, want its tool call", res.Answer.Message)
		}
		e.appendJSONL(`{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"18"}` + "\n")
		turn.Contents = nil
	}
	// The fenced answer was checked and stored as the model wrote it.
	if got := string(res.Answer.Metadata.Aux["schema"]); got != `"City"` { // the title names it
		t.Errorf("aux.schema = %s, want \"City\"", got)
	}
	if got := res.Answer.Message.Contents; len(got) != 1 || !strings.HasPrefix(got[0], "```json\n{\"city\":\"Paris\"") {
		t.Errorf("answer contents %q", got)
	}
}

// TestKeepRaw: raw response bodies land in DIR/<conversation>/, one per
// call, stored or not, and never hold the key, even when the provider
// echoes it.
func TestKeepRaw(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			reg, _ := format.Lookup(p.name)
			echo := &answer{Text: "Your key is " + testKey + ", isn't it?"}
			if reg.KeyEnv == "" { // ollama takes no key: there is none to leak
				echo = &answer{Text: "Hello."}
			}
			e := newEnv(t, p, llm.Options{}, step{Answer: echo}, step{Answer: echo}, step{Answer: echo}, step{Answer: &answer{Text: "cut", Finish: p.cut[0]}})
			dir := t.TempDir()
			for i, agent := range []string{"", "", "tester", ""} {
				turn := e.turn("one")
				turn.KeepRaw, turn.Agent = dir, agent
				if i == 1 {
					turn.OnText = func(string) {}
				}
				if _, err := e.run(turn); (err != nil) != (i == 3) {
					t.Fatalf("ask %d: %v", i, err)
				}
			}
			files, _ := filepath.Glob(filepath.Join(dir, "c", "*.json"))
			if len(files) != 4 {
				t.Fatalf("raw files: %v", files)
			}
			agents := 0
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(b, []byte(testKey)) {
					t.Fatalf("%s holds the key", f)
				}
				if !json.Valid(b) || reg.KeyEnv != "" && !bytes.Contains(b, []byte("[REDACTED]")) && !bytes.Contains(b, []byte("cut")) {
					t.Errorf("%s: %s", f, b)
				}
				if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v", f, fi.Mode())
				}
				switch base := filepath.Base(f); {
				case strings.HasPrefix(base, p.name+"-"+p.modelName()+"_"):
					agents++
				case strings.HasPrefix(base, "tester_"):
				default:
					t.Errorf("raw file name %s", base)
				}
			}
			if agents != 3 {
				t.Errorf("files named after provider and model: %d of 4", agents)
			}
			if strings.Contains(e.dump(), testKey) {
				t.Fatal("the key was stored")
			}
		})
	}
}

// An archive that cannot be written never costs the answer, which was
// paid for: the turn is stored and Result.RawErr says what was not kept.
func TestKeepRawUnwritable(t *testing.T) {
	e := newEnv(t, providers[0], llm.Options{})
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	turn := e.turn("Hi")
	turn.KeepRaw = file // a file, not a directory
	res, err := e.run(turn)
	if err != nil || res.RawErr == nil || !strings.Contains(res.RawErr.Error(), "--keep-raw") || len(e.records()) != 2 {
		t.Fatalf("%v, raw: %v, stored %q", err, res.RawErr, e.dump())
	}
}

// A conversation id of 256 bytes (the most an id may have) escapes to more
// than a file name may hold: its directory gets a shortened name with a
// hash of the whole id, the same on every call, and the answer is kept.
func TestKeepRawLongNames(t *testing.T) {
	e := newEnv(t, providers[0], llm.Options{})
	dir := t.TempDir()
	long := strings.Repeat("é", 128) // 256 bytes, escaped to 768
	for range 2 {
		turn := e.turn("Hi")
		turn.Conversation, turn.KeepRaw, turn.Agent = long, dir, strings.Repeat("agent/", 60)
		res, err := e.run(turn)
		if err != nil || res.RawErr != nil {
			t.Fatalf("%v, raw: %v", err, res.RawErr)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(files) != 2 || filepath.Dir(files[0]) != filepath.Dir(files[1]) {
		t.Fatalf("raw files %v, want 2 in one directory", files)
	}
}

func TestPathElementLong(t *testing.T) {
	a, b := strings.Repeat("x", 300)+"a", strings.Repeat("x", 300)+"b"
	ea, eb := pathElement(a), pathElement(b)
	if len(ea) > maxElement || len(eb) > maxElement || ea == eb || pathElement(a) != ea {
		t.Errorf("pathElement: %q, %q: want distinct, stable, at most %d bytes", ea, eb, maxElement)
	}
	// A cut never splits an escape.
	for n := range 3 {
		e := pathElement(strings.Repeat("x", n) + strings.Repeat("é", 200))
		i := strings.LastIndexByte(e, '~')
		if _, err := url.PathUnescape(e[:max(i, 0)]); i < 0 || err != nil || len(e) > maxElement {
			t.Errorf("pathElement(%d x, then é) = %q: cut in an escape, or too long", n, e)
		}
	}
}

func TestPathElement(t *testing.T) {
	for in, want := range map[string]string{"a/b": "a%2Fb", "..": "%2E%2E", ".": "%2E", `c:\x`: "c%3A%5Cx", "gpt-4o": "gpt-4o"} {
		if got := pathElement(in); got != want {
			t.Errorf("pathElement(%q) = %q, want %q", in, got, want)
		}
	}
}

// RenderView renders the stored view: the prompt, the latest summary and
// the records after it; a conversation not stored is not found.
func TestRenderView(t *testing.T) {
	e := newEnv(t, providers[0], llm.Options{})
	e.seed()
	var b bytes.Buffer
	if err := RenderView(context.Background(), e.s, "c", &b, format.Request{Provider: "openai"}); err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Earlier question about Lisbon"},{"role":"assistant","content":"Earlier answer about Lisbon"}]}`
	if strings.TrimSpace(b.String()) != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
	err := RenderView(context.Background(), e.s, "nobody", &b, format.Request{Provider: "openai"})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing conversation: %v", err)
	}
}
