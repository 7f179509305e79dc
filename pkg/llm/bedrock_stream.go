package llm

// Bedrock's ConverseStream: AWS event-stream frames (eventstream.go) whose
// events pkg/format assembles into the Converse answer (bedrock_stream.go
// there); the exceptions the frames carry are read here.

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/convo-cli/convo/pkg/format"
)

// assembleBedrock reads a converse-stream answer, passing its text on, and
// returns the body Converse returns for the same request.
func assembleBedrock(r io.Reader, onText func(string)) ([]byte, error) {
	p, _ := format.Lookup("bedrock")
	asm := p.NewStream()
	err := readEventStream(r, func(m eventMessage) error {
		if err := bedrockFailure(m); err != nil {
			return err
		}
		_, err := asm.Add(m.headers[":event-type"], m.payload, onText)
		return err
	})
	if errors.Is(err, errEventStream) {
		return nil, format.BadStream("bedrock", err)
	}
	if err != nil {
		return nil, err
	}
	return asm.Body()
}

// bedrockRetryable are the exceptions of a stream that a later attempt may
// not meet.
var bedrockRetryable = map[string]bool{
	"throttlingException": true, "serviceUnavailableException": true,
	"internalServerException": true, "modelStreamErrorException": true,
}

// bedrockFailure is the *format.ProviderError of a frame that is no event:
// an exception or an error.
func bedrockFailure(m eventMessage) error {
	switch m.headers[":message-type"] {
	case "event":
		return nil
	case "exception":
		kind := m.headers[":exception-type"]
		msg, _ := format.ErrorMessage(m.payload)
		return &format.ProviderError{Provider: "bedrock", Status: http.StatusOK, Message: cmp.Or(msg, kind), Retryable: bedrockRetryable[kind]}
	case "error":
		return &format.ProviderError{Provider: "bedrock", Status: http.StatusOK,
			Message: cmp.Or(m.headers[":error-message"], m.headers[":error-code"], "stream error")}
	default:
		return format.BadStream("bedrock", fmt.Errorf("event of :message-type %q", m.headers[":message-type"]))
	}
}
