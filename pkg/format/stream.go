package format

import (
	"fmt"
	"io"
	"net/http"
)

// StreamAssembler assembles one streamed answer, event by event, into the
// body the same call returns without streaming, so that ParseResponse
// reads both alike and what is stored does not depend on streaming. Each
// event's JSON is decoded once, here; pkg/llm only frames the stream (SSE
// lines, NDJSON lines, AWS event-stream frames) and hands the events on.
// Provider.NewStream chooses the provider's.
type StreamAssembler interface {
	// Add reads one event: name is the framing's name for it (an SSE
	// "event:" field, a Bedrock frame's :event-type; "" when it has
	// none) and data its payload, which Add does not keep. Pieces of the
	// answer's text go to onText as they arrive (not gemini's: its
	// transport passes the SDK's on, see NewStream). end reports the
	// answer's last event: the stream is read no further. An error is a
	// *ProviderError (an error event, a payload that does not decode).
	Add(name string, data []byte, onText func(string)) (end bool, err error)
	// Body is the assembled body, or ErrStreamCut when the events added do
	// not finish the answer.
	Body() ([]byte, error)
}

// ErrStreamCut is the cause of a stream that ended before its answer did:
// the connection was cut, so the attempt may be retried (it wraps
// io.ErrUnexpectedEOF).
var ErrStreamCut = fmt.Errorf("the stream ended before the answer did: %w", io.ErrUnexpectedEOF)

// BadStream is the *ProviderError of a 2xx stream whose events are not the
// JSON the provider documents (a proxy's HTML page, a cut event...).
func BadStream(provider string, err error) *ProviderError {
	return &ProviderError{Provider: provider, Status: http.StatusOK, Message: fmt.Sprintf("response body does not decode: %v", err), Err: err}
}

// streamError is the *ProviderError of an error event inside a 2xx stream.
func streamError(provider string, event []byte) *ProviderError {
	msg, _ := ErrorMessage(event)
	return &ProviderError{Provider: provider, Status: http.StatusOK, Message: msg}
}

// streamFailure is a *ProviderError of a 2xx stream, with its message.
func streamFailure(provider, msg string) *ProviderError {
	return &ProviderError{Provider: provider, Status: http.StatusOK, Message: msg}
}
