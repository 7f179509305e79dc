package cmd

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/convo-cli/convo/pkg/store"
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

// ackCommit is a parsed token: what --commit-cursor moves.
type ackCommit struct {
	sink  string
	marks []store.Mark
}

// encodeAck returns the token of an export to sink that left marks.
// Marks where the export found nothing new are left out: nothing to move.
func encodeAck(sink string, marks []store.Mark) string {
	var keep []store.Mark
	for _, m := range marks {
		if m.To != m.From {
			keep = append(keep, m)
		}
	}
	b := appendAckString(nil, sink)
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

// parseAck reads a token encodeAck made. Anything else (mistyped, cut
// short, from another program) is a usage error: the zlib checksum and a
// check of every value catch it before the store is touched.
func parseAck(tok string) (*ackCommit, error) {
	bad := func(why string) error {
		return usageErrorf("--commit-cursor: not a token that export --ack printed (%s)", why)
	}
	enc, ok := strings.CutPrefix(tok, ackPrefix)
	if !ok {
		return nil, bad("it starts with " + ackPrefix)
	}
	z, err := base64.RawURLEncoding.Strict().DecodeString(enc)
	if err != nil {
		return nil, bad("not base64url")
	}
	zr := bytes.NewReader(z)
	r, err := zlib.NewReader(zr)
	if err != nil {
		return nil, bad("damaged")
	}
	b, err := io.ReadAll(io.LimitReader(r, maxAckBytes+1))
	if err != nil || zr.Len() > 0 {
		return nil, bad("damaged")
	}
	if len(b) > maxAckBytes {
		return nil, bad("too large")
	}
	d := ackDecoder{b: b}
	c := &ackCommit{sink: d.string()}
	n := d.uvarint()
	seen := map[string]bool{}
	for i := uint64(0); i < n && d.err == nil; i++ {
		m := store.Mark{Conversation: d.string(), Sink: c.sink}
		for _, v := range []*int64{&m.Created, &m.From.Seq, &m.From.Held, &m.To.Seq, &m.To.Held} {
			*v = d.int64()
		}
		if d.err == nil && (m.Conversation == "" || checkConversationID(m.Conversation) != nil || !utf8.ValidString(m.Conversation) ||
			seen[m.Conversation] || !validMark(m)) {
			return nil, bad("damaged")
		}
		seen[m.Conversation] = true
		c.marks = append(c.marks, m)
	}
	if d.err != nil || len(d.b) > 0 || c.sink == "" || !utf8.ValidString(c.sink) {
		return nil, bad("damaged")
	}
	return c, nil
}

// validMark reports whether m is a mark an export can leave: a held
// version no newer than the cursor, and To ahead of From.
func validMark(m store.Mark) bool {
	for _, c := range []store.Cursor{m.From, m.To} {
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

// ackStore is the store of an --ack export: Commit keeps the marks for the
// token instead of moving the cursors, which --commit-cursor does once the
// consumer confirms.
type ackStore struct {
	exportStore
	marks *[]store.Mark
}

func (s ackStore) Commit(_ context.Context, marks ...store.Mark) error {
	*s.marks = append(*s.marks, marks...)
	return nil
}

// commitCursorRun is export --commit-cursor TOKEN: the cursors move
// forward, never back, so a token committed twice or after a later one
// changes nothing.
func commitCursorRun(ctx context.Context, o *exportOptions) error {
	if len(o.commit.marks) == 0 {
		o.f.warnf("sink %q: the export found nothing new; no cursor to move", o.commit.sink)
		return nil
	}
	s, err := o.f.ExistingStore(ctx)
	if err != nil {
		return err
	}
	moved, err := s.Advance(ctx, o.commit.marks...)
	if err != nil {
		return err
	}
	o.f.warnf("sink %q: moved %d of the %d cursor(s) in the token; the others were there or past it already",
		o.commit.sink, moved, len(o.commit.marks))
	return nil
}

// printAck tells the person how to commit what the export sent; not even
// --quiet drops it, the token being the only way to move the cursor.
func (o *exportOptions) printAck(marks []store.Mark) {
	fmt.Fprintf(o.f.IO.ErrOut, "convo: nothing is marked as sent until the consumer confirms with: convo export --commit-cursor %s\n",
		encodeAck(o.sink, marks))
}
