// Package flagvalue reads the values of convo's flags that more than one
// command takes into the values the use cases want: TEXT|@FILE, --system,
// --temperature, --tools, --rate, --schema, a conversation id, a record
// reference, --timing and --aux, a TIME (cutoff.go), and the TEXT
// arguments with the message append builds of them (message.go). A value
// that cannot work is a usage error (exit 2) naming its flag. cmd declares
// the flags; this package knows no flag library.
package flagvalue

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/convo-cli/convo/internal/exitcode"
	"github.com/convo-cli/convo/pkg/ask"
	"github.com/convo-cli/convo/pkg/format"
	"github.com/convo-cli/convo/pkg/llm"
	"github.com/convo-cli/convo/pkg/transcript"
)

// Rate reads --rate N/PERIOD (llm.ParseRate): the interval between two
// requests, 0 for none.
func Rate(v string) (time.Duration, error) {
	d, err := llm.ParseRate(v)
	if err != nil {
		return 0, exitcode.Usagef("--rate %v", err)
	}
	return d, nil
}

// TextOrFile reads a TEXT|@FILE value of flag.
func TextOrFile(flag, v string) (string, error) {
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := readFile(name)
		if err != nil {
			return "", exitcode.Usagef("%s: %v", flag, err)
		}
		return string(b), nil
	}
	return v, nil
}

// MaxFileBytes bounds a file a flag names (TEXT|@FILE, --tools, --schema,
// --template): no record holds more text. Read whole, an endless one
// (/dev/zero, a stuck pipe) would take memory until the system ran out.
const MaxFileBytes = transcript.MaxRecordBytes

// readFile reads the file at path, refusing one past MaxFileBytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes (4 MiB), more than a record holds", path, MaxFileBytes)
	}
	return b, nil
}

// System reads --system TEXT|@FILE as the prompt's one content string;
// "" is none. A file's final newline ends its last line: it is not prompt
// text.
func System(v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	text, err := TextOrFile("--system", v)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(v, "@") {
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	}
	return []string{text}, nil
}

// Temperature reads --temperature: "" is unset, else a number of 0 or
// more (a string flag, so that unset differs from 0 wherever it is set).
func Temperature(v string) (*float64, error) {
	if v == "" {
		return nil, nil
	}
	t, err := strconv.ParseFloat(v, 64)
	if err != nil || !(t >= 0) || math.IsInf(t, 1) { // NaN fails t >= 0
		return nil, exitcode.Usagef("--temperature %q: want a number of 0 or more", v)
	}
	return &t, nil
}

// Tools reads the --tools file (the forms format.ParseTools takes); ""
// is none.
func Tools(path string) ([]format.Tool, error) {
	if path == "" {
		return nil, nil
	}
	b, err := readFile(path)
	if err != nil {
		return nil, exitcode.Usagef("--tools: %v", err)
	}
	tools, err := format.ParseTools(b)
	if err != nil {
		return nil, exitcode.Usagef("--tools %s: %v", path, err)
	}
	return tools, nil
}

// Schema reads and compiles a schema file; flag names where it came from
// in errors ("" for an argument).
func Schema(flag, path string) (*ask.Schema, error) {
	prefix := path
	if flag != "" {
		prefix = flag + " " + path
	}
	b, err := readFile(path)
	if err != nil {
		if flag != "" {
			return nil, exitcode.Usagef("%s: %v", flag, err)
		}
		return nil, exitcode.Usagef("%v", err)
	}
	sch, err := ask.NewSchema(ask.FileSchemaName(path), b)
	if err != nil {
		return nil, exitcode.Usagef("%s: %v", prefix, err)
	}
	return sch, nil
}

// Conversation checks -c for the commands that need a stored conversation.
func Conversation(id string) error {
	if id == "" {
		return exitcode.Usagef("missing -c/--conversation")
	}
	return ConversationID(id)
}

// ConversationID checks a conversation id that may be "" (none).
func ConversationID(id string) error {
	if len(id) > transcript.MaxConversationBytes {
		return exitcode.Usagef("conversation id longer than %d bytes", transcript.MaxConversationBytes)
	}
	if strings.IndexByte(id, 0) >= 0 {
		return exitcode.Usagef("conversation id contains a NUL character")
	}
	return nil
}

// Ref reads a --id/--at/--to value (see transcript.ParseRef).
func Ref(flag, v string) (transcript.Ref, error) {
	if v == "" {
		return "", exitcode.Usagef("missing %s: want %s", flag, transcript.RefHelp)
	}
	ref, err := transcript.ParseRef(v)
	if err != nil {
		return "", exitcode.Usagef("%s %v", flag, err)
	}
	return ref, nil
}

// Annotation reads --timing, --aux and --unset-aux (see
// transcript.ParseAnnotation): a malformed flag is a usage error, an
// unknown timing key invalid input, as it is in a record.
func Annotation(timing, aux, unsetAux []string, now int64) (*transcript.Annotation, error) {
	an, err := transcript.ParseAnnotation(timing, aux, unsetAux, now)
	var ie *transcript.InputError
	if err != nil && !errors.As(err, &ie) {
		return nil, &exitcode.UsageError{Err: err}
	}
	return an, err
}
