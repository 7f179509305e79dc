package llm

// The AWS event stream encoding, which Bedrock's converse-stream answers in
// (Content-Type application/vnd.amazon.eventstream):
//   https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-stream
//   https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html
// Each message is a 12-byte prelude (total length and headers length, both
// big-endian uint32, then the CRC-32 of those 8 bytes), the headers, the
// payload, and the CRC-32 of everything before it. A header is a 1-byte
// name length, the name, a 1-byte value type and the value: 0 true and
// 1 false (no value), 2 byte, 3 int16, 4 int32, 5 int64, 6 bytes and
// 7 string (a 2-byte length first), 8 timestamp (int64 milliseconds),
// 9 UUID (16 bytes).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Limits of one message, as the AWS SDKs set them: a larger length is a
// corrupt prelude, not a message to allocate for.
const (
	eventMaxPayload = 16 << 20
	eventMaxHeaders = 128 << 10
	eventPrelude    = 12
	eventMinMessage = eventPrelude + 4
)

// eventMessage is one decoded message: its string headers (":event-type",
// ":message-type", ":exception-type"...) and its payload. Headers of other
// types are checked and skipped: no stream convo reads needs them.
type eventMessage struct {
	headers map[string]string
	payload []byte
}

// errEventStream is wrapped by every error of a stream that is not in the
// event stream encoding.
var errEventStream = errors.New("not an AWS event stream")

func eventStreamError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errEventStream}, args...)...)
}

// readEventStream calls fn for each message of an event stream, checking
// both checksums of each, until the stream ends between two messages (nil),
// fn fails (its error, or nil for errStop), or the stream is cut inside a
// message (errTruncated) or corrupt (wrapping errEventStream).
func readEventStream(r io.Reader, fn func(eventMessage) error) error {
	r = io.LimitReader(r, maxBody)
	var prelude [eventPrelude]byte
	var buf []byte
	for {
		if _, err := io.ReadFull(r, prelude[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return errTruncated
			}
			return err
		}
		total := binary.BigEndian.Uint32(prelude[0:4])
		headersLen := binary.BigEndian.Uint32(prelude[4:8])
		if got, want := crc32.ChecksumIEEE(prelude[:8]), binary.BigEndian.Uint32(prelude[8:12]); got != want {
			return eventStreamError("prelude checksum %08x, want %08x", got, want)
		}
		if total < eventMinMessage || headersLen > eventMaxHeaders || total-eventMinMessage < headersLen ||
			total-eventMinMessage-headersLen > eventMaxPayload {
			return eventStreamError("message of %d bytes with %d bytes of headers", total, headersLen)
		}
		rest := int(total) - eventPrelude
		if cap(buf) < rest {
			buf = make([]byte, rest)
		}
		buf = buf[:rest]
		if _, err := io.ReadFull(r, buf); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return errTruncated
			}
			return err
		}
		sum := crc32.Update(crc32.ChecksumIEEE(prelude[:]), crc32.IEEETable, buf[:rest-4])
		if want := binary.BigEndian.Uint32(buf[rest-4:]); sum != want {
			return eventStreamError("message checksum %08x, want %08x", sum, want)
		}
		headers, err := eventHeaders(buf[:headersLen])
		if err != nil {
			return err
		}
		// buf is reused: fn gets a payload of its own.
		msg := eventMessage{headers: headers, payload: append([]byte(nil), buf[headersLen:rest-4]...)}
		if err := fn(msg); err != nil {
			return err
		}
	}
}

// eventHeaders decodes a message's headers, keeping those of string type.
func eventHeaders(b []byte) (map[string]string, error) {
	out := map[string]string{}
	for len(b) > 0 {
		n := int(b[0])
		if n == 0 || len(b) < 1+n+1 {
			return nil, eventStreamError("header name of %d bytes in %d", n, len(b)-1)
		}
		name, kind := string(b[1:1+n]), b[1+n]
		b = b[2+n:]
		size := 0
		switch kind {
		case 0, 1: // true, false
		case 2:
			size = 1
		case 3:
			size = 2
		case 4:
			size = 4
		case 5, 8:
			size = 8
		case 9:
			size = 16
		case 6, 7:
			if len(b) < 2 {
				return nil, eventStreamError("header %q: no length", name)
			}
			size = int(binary.BigEndian.Uint16(b))
			b = b[2:]
		default:
			return nil, eventStreamError("header %q: unknown value type %d", name, kind)
		}
		if len(b) < size {
			return nil, eventStreamError("header %q: value of %d bytes in %d", name, size, len(b))
		}
		if kind == 7 {
			out[name] = string(b[:size])
		}
		b = b[size:]
	}
	return out, nil
}
