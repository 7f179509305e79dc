package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/convo-cli/convo/internal/providertest"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/transcript"
)

// escapeOne writes the byte at i of key as a JSON \u escape: what a server
// that escapes one letter of an echoed key sends.
func escapeOne(key string, i int) string {
	return key[:i] + fmt.Sprintf(`\u%04x`, key[i]) + key[i+1:]
}

func TestRedactor(t *testing.T) {
	const key, other = "sk-abc-0123456789", "ant-KEY/with+slash"
	r := NewRedactor(key, "", "EMPTY", other)
	for _, tc := range []struct{ in, want string }{
		{"key " + key + " end", "key [REDACTED] end"},
		{`"key ` + escapeOne(key, 3) + `"`, `"key [REDACTED]"`},
		{`"s\u006B` + key[2:] + `"`, `"[REDACTED]"`},                          // upper-case hex
		{`"{\"k\":\"sk-\\u0061bc-0123456789\"}"`, `"{\"k\":\"[REDACTED]\"}"`}, // escaped twice: a JSON text inside a string
		{`"ant-KEY\/with+slash"`, `"[REDACTED]"`},
		{`"C:\\` + key + `"`, `"C:[REDACTED]"`},   // no backslash left to escape the replacement
		{`"\n` + key[1:] + `"`, `"\n[REDACTED]"`}, // twelve bytes of a key or more are hidden
		{"EMPTY is no key", "EMPTY is no key"},    // a placeholder is left alone
		{"sk-abc-012345678 is the key less one byte", "[REDACTED] is the key less one byte"},
		{"sk-abc-0123 is eleven bytes of it", "sk-abc-0123 is eleven bytes of it"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if json.Valid([]byte(tc.in)) && !json.Valid([]byte(r.String(tc.in))) {
			t.Errorf("String(%q) broke the JSON", tc.in)
		}
	}
	if b := []byte("nothing to hide"); &r.Bytes(b)[0] != &b[0] {
		t.Error("a clean text was copied")
	}
}

func TestKnownKeys(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a", "GEMINI_API_KEY": "g", "OLLAMA_HOST": "h"}
	got := KnownKeys(func(k string) string { return env[k] })
	if strings.Join(got, ",") != "o,a,g" {
		t.Errorf("KnownKeys = %q", got)
	}
	if o := FromEnv("ollama", func(k string) string { return env[k] }); strings.Join(o.Secrets, ",") != "o,a,g" {
		t.Errorf("FromEnv(ollama).Secrets = %q", o.Secrets)
	}
}

// TestEscapedKeyEcho: a provider echoing the key with one letter
// JSON-escaped, in an error body or in an answer, streamed or not, never
// shows it, nor the key of another provider the options name.
func TestEscapedKeyEcho(t *testing.T) {
	const otherKey = "sk-ant-OTHER-PROVIDER-KEY"
	for _, f := range callable {
		if f.provider == "ollama" {
			continue
		}
		t.Run(f.provider, func(t *testing.T) {
			echo := "your key " + testKey + " and " + otherKey
			answer := providertest.Body(f.provider, model(f.provider), &providertest.Answer{Text: echo})
			answer = strings.ReplaceAll(answer, testKey, escapeOne(testKey, 4))
			answer = strings.ReplaceAll(answer, otherKey, escapeOne(otherKey, 0))
			errBody := `{"error":{"message":"Incorrect API key provided: ` + escapeOne(testKey, 8) + `"}}`
			s := start(t, providertest.Step{Body: answer}, providertest.Step{Status: 401, Body: errBody})
			c := transport(t, f.provider, s, Options{Secrets: []string{otherKey}})

			reply, err := c.Send(context.Background(), request(t, f.provider, false))
			if err != nil {
				t.Fatal(err)
			}
			ans, err := format.ParseResponse(f.provider, reply.Body, nil)
			if err != nil {
				t.Fatalf("%v: %s", err, reply.Body)
			}
			if got := ans.Text(); got != "your key [REDACTED] and [REDACTED]" {
				t.Errorf("answer %q", got)
			}
			_, err = c.Send(context.Background(), request(t, f.provider, false))
			if e := wantError(t, err); e.Status != 401 || !strings.Contains(e.Message, "[REDACTED]") {
				t.Errorf("%v", err)
			}
			noSecret(t, reply.Body, err)
		})
	}
}

// A run of twelve or more bytes of a key is hidden wherever it stands: a
// key cut short, or half of one; eleven bytes of it are no secret.
func TestRedactFragments(t *testing.T) {
	key := "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	r := NewRedactor(key)
	for in, want := range map[string]string{
		"key " + key[:len(key)-1] + " rejected":     "key " + Redacted + " rejected",
		"tail " + key[20:] + ".":                    "tail " + Redacted + ".",
		"two " + key[:12] + " and " + key[30:] + "": "two " + Redacted + " and " + Redacted,
		"short " + key[:11] + " stays":              "short " + key[:11] + " stays",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// Record hides keys in every text of a record, and refuses, unchanged, a
// record whose provider data holds one.
func TestRedactRecord(t *testing.T) {
	const key = "sk-abc-0123456789"
	r := NewRedactor(key)
	rec := transcript.Record{Message: transcript.Message{
		Role:      transcript.RoleAssistant,
		Contents:  []string{"key " + key, "part " + key[:13]},
		ToolCalls: []transcript.ToolCall{{ID: "c", Name: "login", Arguments: `{"k":"` + key + `"}`}},
	}, Metadata: transcript.Metadata{Aux: map[string]json.RawMessage{"note": json.RawMessage(`"` + key + `"`)}}}
	if err := r.Record(&rec); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), key[:12]) || strings.Count(string(b), Redacted) != 4 {
		t.Errorf("not hidden: %s", b)
	}

	item := json.RawMessage(`{"type":"thinking","signature":"x` + key + `"}`)
	rec = transcript.Record{Message: transcript.Message{
		Role: transcript.RoleAssistant, Contents: []string{key},
		ProviderData: []transcript.ProviderItem{{Provider: "anthropic", Item: item}},
	}}
	err := r.Record(&rec)
	var ie *transcript.InputError
	if !errors.As(err, &ie) || ie.Field != "message.provider_data[0]" {
		t.Fatalf("want an input error naming the item, got %v", err)
	}
	if rec.Message.Contents[0] != key || string(rec.Message.ProviderData[0].Item) != string(item) {
		t.Errorf("a refused record was changed: %+v", rec)
	}
	if strings.Contains(err.Error(), key[:12]) {
		t.Errorf("the error shows the key: %v", err)
	}
}
