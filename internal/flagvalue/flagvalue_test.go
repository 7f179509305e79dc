package flagvalue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/transcript"
)

// usage fails the test unless err is a usage error containing want.
func usage(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want a usage error with %q", err, want)
	}
}

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRate(t *testing.T) {
	if d, err := Rate("10/1s"); err != nil || d != 100*time.Millisecond {
		t.Errorf("Rate(10/1s) = %v, %v", d, err)
	}
	if d, err := Rate(""); err != nil || d != 0 {
		t.Errorf("Rate(\"\") = %v, %v", d, err)
	}
	_, err := Rate("ten")
	usage(t, err, "--rate")
}

func TestTextOrFileAndSystem(t *testing.T) {
	p := write(t, "prompt.txt", "be brief\r\n")
	if v, err := TextOrFile("--prompt", "plain"); err != nil || v != "plain" {
		t.Errorf("TextOrFile(plain) = %q, %v", v, err)
	}
	if v, err := TextOrFile("--prompt", "@"+p); err != nil || v != "be brief\r\n" {
		t.Errorf("TextOrFile(@FILE) = %q, %v", v, err)
	}
	_, err := TextOrFile("--prompt", "@"+p+".missing")
	usage(t, err, "--prompt: ")
	// A file's final line end is not prompt text; a TEXT's is.
	if v, err := System("@" + p); err != nil || len(v) != 1 || v[0] != "be brief" {
		t.Errorf("System(@FILE) = %q, %v", v, err)
	}
	if v, err := System("hi\n"); err != nil || v[0] != "hi\n" {
		t.Errorf("System(TEXT) = %q, %v", v, err)
	}
	if v, err := System(""); err != nil || v != nil {
		t.Errorf("System(\"\") = %q, %v", v, err)
	}
}

func TestTemperature(t *testing.T) {
	if v, err := Temperature(""); err != nil || v != nil {
		t.Errorf("unset: %v, %v", v, err)
	}
	if v, err := Temperature("0"); err != nil || v == nil || *v != 0 {
		t.Errorf("0: %v, %v", v, err)
	}
	for _, bad := range []string{"-1", "NaN", "+Inf", "warm"} {
		_, err := Temperature(bad)
		usage(t, err, "--temperature")
	}
}

func TestTools(t *testing.T) {
	if tools, err := Tools(""); err != nil || tools != nil {
		t.Errorf("none: %v, %v", tools, err)
	}
	p := write(t, "tools.json", `[{"name":"get_weather","description":"d","parameters":{"type":"object"}}]`)
	if tools, err := Tools(p); err != nil || len(tools) != 1 || tools[0].Name != "get_weather" {
		t.Errorf("Tools = %+v, %v", tools, err)
	}
	_, err := Tools(write(t, "bad.json", `{`))
	usage(t, err, "--tools ")
}

func TestSchema(t *testing.T) {
	p := write(t, "s.json", `{"type":"object"}`)
	if s, err := Schema("--schema", p); err != nil || s == nil {
		t.Errorf("Schema = %v, %v", s, err)
	}
	_, err := Schema("--schema", write(t, "bad.json", `{`))
	usage(t, err, "--schema ")
	_, err = Schema("", p+".missing")
	usage(t, err, "no such file")
}

func TestConversation(t *testing.T) {
	usage(t, Conversation(""), "missing -c/--conversation")
	usage(t, Conversation("a\x00b"), "NUL")
	usage(t, ConversationID(strings.Repeat("x", transcript.MaxConversationBytes+1)), "longer than")
	if err := ConversationID(""); err != nil {
		t.Errorf("ConversationID(\"\") = %v", err)
	}
	if err := Conversation("demo"); err != nil {
		t.Errorf("Conversation(demo) = %v", err)
	}
}
