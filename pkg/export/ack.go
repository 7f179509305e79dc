package export

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/transcript"
)

// An --ack export moves no cursor: it prints a token, and the consumer,
// once it holds the records, hands it to --commit-cursor. The token is
// self-contained, so nothing waits in the store for a confirmation that
// may never come: the sink, and per conversation exported its creation
// time (a cleared and re-created conversation is another), the cursor the
// export found and the one it would have set. Binary, zlib-compressed (the
// ids of --all share much) and checksummed, base64url.

// ackPrefix starts every token; its digit is the token format's version.
const ackPrefix = "ack1."

// maxAckBytes bounds a token's decompressed size: no export of a store
// this side of a million conversations makes more.
const maxAckBytes = 64 << 20

// Ack is what an ack token holds: the sink, and the cursor moves of the
// conversations exported to it.
type Ack struct {
	Sink  string
	Marks []AckMark
}

// AckMark is one conversation's cursor move: From the cursor the export
// found, To the one it would have set; Created tells a cleared and
// re-created conversation apart.
type AckMark struct {
	Conversation string
	Created      int64
	From, To     Cursor
}

// AckError is a token that is not one EncodeAck made: Why says how it
// shows.
type AckError struct{ Why string }

func (e *AckError) Error() string { return "not an ack token (" + e.Why + ")" }

// EncodeAck returns the token of a. Marks where the export found nothing
// new are left out: nothing to move.
func EncodeAck(a Ack) string {
	var keep []AckMark
	for _, m := range a.Marks {
		if m.To != m.From {
			keep = append(keep, m)
		}
	}
	b := appendAckString(nil, a.Sink)
	b = binary.AppendUvarint(b, uint64(len(keep)))
	for _, m := range keep {
		b = appendAckString(b, m.Conversation)
		for _, v := range []int64{m.Created, m.From.Seq, m.From.Held, m.To.Seq, m.To.Held} {
			b = binary.AppendUvarint(b, uint64(v))
		}
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(b) // a bytes.Buffer takes everything
	w.Close()
	return ackPrefix + base64.RawURLEncoding.EncodeToString(z.Bytes())
}

func appendAckString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// ParseAck reads a token EncodeAck made. Anything else (mistyped, cut
// short, from another program) is an *AckError: the zlib checksum and a
// check of every value catch it before any store is touched.
func ParseAck(tok string) (Ack, error) {
	bad := func(why string) (Ack, error) { return Ack{}, &AckError{why} }
	enc, ok := strings.CutPrefix(tok, ackPrefix)
	if !ok {
		return bad("it starts with " + ackPrefix)
	}
	z, err := base64.RawURLEncoding.Strict().DecodeString(enc)
	if err != nil {
		return bad("not base64url")
	}
	zr := bytes.NewReader(z)
	r, err := zlib.NewReader(zr)
	if err != nil {
		return bad("damaged")
	}
	b, err := io.ReadAll(io.LimitReader(r, maxAckBytes+1))
	if err != nil || zr.Len() > 0 {
		return bad("damaged")
	}
	if len(b) > maxAckBytes {
		return bad("too large")
	}
	d := ackDecoder{b: b}
	a := Ack{Sink: d.string()}
	n := d.uvarint()
	seen := map[string]bool{}
	for i := uint64(0); i < n && d.err == nil; i++ {
		m := AckMark{Conversation: d.string()}
		for _, v := range []*int64{&m.Created, &m.From.Seq, &m.From.Held, &m.To.Seq, &m.To.Held} {
			*v = d.int64()
		}
		if d.err == nil && (!validConversation(m.Conversation) || seen[m.Conversation] || !m.valid()) {
			return bad("damaged")
		}
		seen[m.Conversation] = true
		a.Marks = append(a.Marks, m)
	}
	if d.err != nil || len(d.b) > 0 || a.Sink == "" || !utf8.ValidString(a.Sink) {
		return bad("damaged")
	}
	return a, nil
}

// validConversation reports whether id is a conversation id a store holds.
func validConversation(id string) bool {
	return id != "" && len(id) <= transcript.MaxConversationBytes && strings.IndexByte(id, 0) < 0 && utf8.ValidString(id)
}

// valid reports whether m is a move an export can leave: a held version
// no newer than the cursor, and To ahead of From.
func (m AckMark) valid() bool {
	for _, c := range []Cursor{m.From, m.To} {
		if c.Held > c.Seq {
			return false
		}
	}
	return m.To != m.From && m.To.Covers(m.From)
}

// ackDecoder reads a token's fields; the first failure sticks.
type ackDecoder struct {
	b   []byte
	err error
}

var errAckShort = errors.New("token cut short")

func (d *ackDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errAckShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *ackDecoder) int64() int64 {
	v := d.uvarint()
	if v > 1<<63-1 {
		d.err = errAckShort
	}
	return int64(v)
}

func (d *ackDecoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errAckShort
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
