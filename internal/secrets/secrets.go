// Package secrets holds what convo must never show: the passwords of the
// store locations it opened (masked on stderr) and the provider keys it
// holds (hidden on stderr and in every record stored).
package secrets

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Secrets are the passwords and keys noted so far; the zero value holds
// none. Its Writer sees what is noted later.
type Secrets struct {
	passwords []string
	keys      *llm.Redactor
}

// New returns Secrets with no key noted yet.
func New() Secrets { return Secrets{keys: &llm.Redactor{}} }

// NotePasswords makes Writer mask these passwords (a PostgreSQL store
// location's, PGPASSWORD's) from here on: whatever a message, a log line
// or a summary says about the store, the password never shows, even where
// a library's text would repeat it.
func (s *Secrets) NotePasswords(passwords ...string) {
	s.passwords = append(s.passwords, passwords...)
}

// NoteKeys makes Writer, Redact and Guard hide the provider keys convo
// holds (read by getenv: the environment or the config file): one
// redaction, whatever the text's source.
func (s *Secrets) NoteKeys(getenv func(string) string) {
	if s.keys == nil {
		s.keys = &llm.Redactor{}
	}
	*s.keys = llm.NewRedactor(llm.KnownKeys(getenv)...)
}

// Writer is w less the secrets noted, each password written as xxxxx, and
// the provider keys, and any twelve bytes of one, hidden whatever wrote
// them (a provider's error, a summarizer's). A line is written whole, as
// every message and log line is, so a secret is never split across two
// writes.
func (s *Secrets) Writer(w io.Writer) io.Writer { return writer{w, s} }

type writer struct {
	w       io.Writer
	secrets *Secrets
}

func (r writer) Write(p []byte) (int, error) {
	out := p
	if r.secrets.keys != nil {
		out = r.secrets.keys.Bytes(out)
	}
	for _, s := range r.secrets.passwords {
		if bytes.Contains(out, []byte(s)) {
			out = bytes.ReplaceAll(out, []byte(s), []byte("xxxxx"))
		}
	}
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Redact hides the provider keys noted in text (see NoteKeys).
func (s *Secrets) Redact(text string) string {
	if s.keys == nil {
		return text
	}
	return s.keys.String(text)
}

// Guarded is recs with every record's text rid of the provider keys
// noted, and a record whose provider data holds one refused (see
// llm.Redactor.Record): what enters the store never carries a key,
// whatever its source.
func (s *Secrets) Guarded(recs transcript.Stream) transcript.Stream {
	if s.keys == nil {
		return recs
	}
	return func(yield func(*transcript.Record) error) error {
		n := 0
		return recs(func(rec *transcript.Record) error {
			n++
			if err := s.keys.Record(rec); err != nil {
				// The n-th record, not a line: Markdown input and merges
				// make records of other than one line each.
				var ie *transcript.InputError
				if errors.As(err, &ie) {
					ie.Field = fmt.Sprintf("record %d: %s", n, ie.Field)
				}
				return err
			}
			return yield(rec)
		})
	}
}

// Guard is Guarded for one record.
func (s *Secrets) Guard(rec *transcript.Record) error {
	if s.keys == nil {
		return nil
	}
	return s.keys.Record(rec)
}
