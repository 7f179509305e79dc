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

// noteSecrets makes stderr mask the passwords a PostgreSQL store location
// holds (the URL's, PGPASSWORD's) from here on: whatever a message, a log
// line or a summary says about the store, the password never shows, even
// where a library's text would repeat it. Other locations hold none.
func (a *Factory) noteSecrets(spec string) {
	if isPostgres(spec) || isPGKeywords(spec) {
		a.secrets = append(a.secrets, postgres.Secrets(spec)...)
	}
}

// redactingWriter is stderr less the secrets its Factory noted, each
// written as xxxxx. A line is written whole, as every message and log line
// is, so a secret is never split across two writes.
type redactingWriter struct {
	w       io.Writer
	secrets *[]string
	// keys hides the provider keys convo holds, and any twelve bytes of
	// one, whatever wrote them (a provider's error, a summarizer's).
	keys *llm.Redactor
}

func (r redactingWriter) Write(p []byte) (int, error) {
	out := p
	if r.keys != nil {
		out = r.keys.Bytes(out)
	}
	for _, s := range *r.secrets {
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
func (a *Factory) noteKeys() {
	if a.keys == nil {
		a.keys = &llm.Redactor{}
	}
	*a.keys = llm.NewRedactor(llm.KnownKeys(a.getenv)...)
}

// redact hides the provider keys convo holds in s (see noteKeys).
func (a *Factory) redact(s string) string {
	if a.keys == nil {
		return s
	}
	return a.keys.String(s)
}

// guarded is next with every record's text rid of the provider keys convo
// holds, and a record whose provider data holds one refused (see
// llm.Redactor.Record): what enters the store never carries a key,
// whatever its source.
func (a *Factory) guarded(next func() (transcript.Record, error)) func() (transcript.Record, error) {
	if a.keys == nil {
		return next
	}
	n := 0
	return func() (transcript.Record, error) {
		rec, err := next()
		if err != nil {
			return rec, err
		}
		n++
		if err := a.keys.Record(&rec); err != nil {
			// The n-th record, not a line: Markdown input and merges
			// make records of other than one line each.
			var ie *transcript.InputError
			if errors.As(err, &ie) {
				ie.Field = fmt.Sprintf("record %d: %s", n, ie.Field)
			}
			return rec, err
		}
		return rec, nil
	}
}

// guard is guarded for one record.
func (a *Factory) guard(rec *transcript.Record) error {
	if a.keys == nil {
		return nil
	}
	return a.keys.Record(rec)
}
