package secrets

import (
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/transcript"
)

const key = "sk-proj-0123456789abcdefghijKLMNOP"

func getenv(name string) string {
	if name == "OPENAI_API_KEY" {
		return key
	}
	return ""
}

// A Writer made before anything is noted hides what is noted after.
func TestWriter(t *testing.T) {
	var buf strings.Builder
	s := New()
	w := s.Writer(&buf)
	s.NoteKeys(getenv)
	s.NotePasswords("pw-s3cret")
	line := "key " + key + " and pw-s3cret\n"
	if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(line))
	}
	if got := buf.String(); strings.Contains(got, key[8:20]) || strings.Contains(got, "s3cret") || !strings.Contains(got, "xxxxx") {
		t.Errorf("written: %q", got)
	}
}

func TestRedactAndGuard(t *testing.T) {
	var zero Secrets // nothing noted: everything passes
	if got := zero.Redact(key); got != key {
		t.Errorf("zero Redact = %q", got)
	}
	s := New()
	s.NoteKeys(getenv)
	if got := s.Redact("it is " + key); strings.Contains(got, key[8:20]) {
		t.Errorf("Redact = %q", got)
	}
	rec := &transcript.Record{Message: transcript.Message{Role: transcript.RoleUser, Contents: []string{"my key is " + key}}}
	one := transcript.Stream(func(yield func(*transcript.Record) error) error { return yield(rec) })
	err := s.Guarded(one)(func(r *transcript.Record) error { return nil })
	if err == nil && strings.Contains(rec.Message.Contents[0], key[8:20]) {
		t.Errorf("Guarded stored the key: %q", rec.Message.Contents[0])
	}
	if err := zero.Guard(rec); err != nil {
		t.Errorf("zero Guard = %v", err)
	}
}
