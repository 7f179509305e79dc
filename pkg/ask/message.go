package ask

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// ReadMessage reads a new user message from r (ask -): the whole stream is
// one content string, less its final line end. An empty message, a NUL
// character, invalid UTF-8 or more than a record holds
// (transcript.MaxRecordBytes) is a *transcript.InputError.
func ReadMessage(r io.Reader) ([]string, error) {
	b, err := io.ReadAll(io.LimitReader(r, transcript.MaxRecordBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	text := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	switch {
	case len(b) > transcript.MaxRecordBytes:
		err = fmt.Errorf("the message on stdin is over %d bytes, more than a record holds", transcript.MaxRecordBytes)
	case strings.TrimSpace(text) == "":
		err = errors.New("the message on stdin is empty")
	case strings.IndexByte(text, 0) >= 0:
		err = errors.New("the message on stdin contains a NUL character")
	case !utf8.ValidString(text):
		err = errors.New("the message on stdin is not valid UTF-8")
	default:
		return []string{text}, nil
	}
	return nil, &transcript.InputError{Err: err}
}
