package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/convo-cli/convo/pkg/transcript"

	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/store/postgres"
)

// secrets are what convo holds that its output must never show: the
// passwords of the store locations it opened (masked on stderr) and the
// provider keys it holds (hidden on stderr and in every record stored).
type secrets struct {
	passwords []string
	keys      *llm.Redactor
}

// notePasswords makes stderr mask the passwords a PostgreSQL store location
// holds (the URL's, PGPASSWORD's) from here on: whatever a message, a log
// line or a summary says about the store, the password never shows, even
// where a library's text would repeat it. Other locations hold none.
func (s *secrets) notePasswords(spec string) {
	if isPostgres(spec) || isPGKeywords(spec) {
		s.passwords = append(s.passwords, postgres.Secrets(spec)...)
	}
}

// redactingWriter is stderr less the secrets its Factory noted, each
// password written as xxxxx, and the provider keys, and any twelve bytes
// of one, hidden whatever wrote them (a provider's error, a summarizer's).
// A line is written whole, as every message and log line is, so a secret
// is never split across two writes.
type redactingWriter struct {
	w       io.Writer
	secrets *secrets
}

func (r redactingWriter) Write(p []byte) (int, error) {
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

// noteKeys makes stderr, and every summary stored, hide the provider keys
// convo holds (from the environment or the config file): one redaction,
// whatever the text's source.
func (s *secrets) noteKeys(getenv func(string) string) {
	if s.keys == nil {
		s.keys = &llm.Redactor{}
	}
	*s.keys = llm.NewRedactor(llm.KnownKeys(getenv)...)
}

// redact hides the provider keys convo holds in s (see noteKeys).
func (s *secrets) redact(text string) string {
	if s.keys == nil {
		return text
	}
	return s.keys.String(text)
}

// guarded is recs with every record's text rid of the provider keys convo
// holds, and a record whose provider data holds one refused (see
// llm.Redactor.Record): what enters the store never carries a key,
// whatever its source.
func (s *secrets) guarded(recs transcript.Stream) transcript.Stream {
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

// guard is guarded for one record.
func (s *secrets) guard(rec *transcript.Record) error {
	if s.keys == nil {
		return nil
	}
	return s.keys.Record(rec)
}
