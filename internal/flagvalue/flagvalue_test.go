package flagvalue

import (
	"bytes"
	"errors"
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

func TestRef(t *testing.T) {
	for in, want := range map[string]transcript.Ref{
		"last": transcript.RefLast, "last-user": transcript.RefLastUser, "last-assistant": transcript.RefLastAssistant,
		"01jrzj166j2wrmf990535evsqs": "01JRZJ166J2WRMF990535EVSQS",
	} {
		if got, err := Ref("--id", in); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", in, got, err, want)
		}
	}
	for in, text := range map[string]string{"": "missing --id: want a record id", "first": `--id "first": want a record id`} {
		if _, err := Ref("--id", in); exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), text) {
			t.Errorf("%q: %v, want a usage error with %q", in, err, text)
		}
	}
}

// A malformed metadata flag is a usage error; an unknown timing key is
// invalid input, as in a record.
func TestAnnotation(t *testing.T) {
	an, err := Annotation([]string{"playStart=now", "llmEnd=7"}, []string{"k=[1, 2]"}, []string{"old"}, 99)
	if err != nil {
		t.Fatal(err)
	}
	if an.Timing["playStart"] != 99 || an.Timing["llmEnd"] != 7 || string(an.Aux["k"]) != "[1,2]" || an.UnsetAux[0] != "old" {
		t.Errorf("annotation %+v", an)
	}
	for _, tt := range []struct {
		timing, aux, unset []string
		code               int
		text               string
	}{
		{timing: []string{"playstart=1"}, code: exitcode.Input, text: `--timing: unknown timing key "playstart"`},
		{timing: []string{"=1"}, code: exitcode.Usage, text: "want KEY=MS"},
		{timing: []string{"playStart=-1"}, code: exitcode.Usage, text: "want milliseconds"},
		{aux: []string{"k"}, code: exitcode.Usage, text: "want KEY=JSON"},
		{aux: []string{"k=text"}, code: exitcode.Usage, text: `quote strings: --aux k='"text"'`},
		{unset: []string{""}, code: exitcode.Usage, text: "--unset-aux: want a KEY"},
	} {
		_, err := Annotation(tt.timing, tt.aux, tt.unset, 0)
		if exitcode.Of(err) != tt.code || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%v %v %v: %v (exit %d), want exit %d with %q", tt.timing, tt.aux, tt.unset, err, exitcode.Of(err), tt.code, tt.text)
		}
	}
}

// A file a flag names is read up to MaxFileBytes: a larger one, or one
// that never ends (/dev/zero), is a usage error naming the flag, not a
// read that takes memory without bound.
func TestFlagFilesBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), MaxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{big}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		_, err1 := TextOrFile("--system", "@"+p)
		_, err2 := Tools(p)
		_, err3 := Schema("--schema", p)
		for i, err := range []error{err1, err2, err3} {
			var ue *exitcode.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "larger than") {
				t.Errorf("%s, reader %d: err = %v, want a usage error saying it is too large", p, i, err)
			}
		}
	}
	ok := filepath.Join(t.TempDir(), "ok")
	if err := os.WriteFile(ok, bytes.Repeat([]byte("x"), MaxFileBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := TextOrFile("--system", "@"+ok); err != nil || len(got) != MaxFileBytes {
		t.Errorf("a file of MaxFileBytes: %d bytes, %v; want it whole", len(got), err)
	}
}
