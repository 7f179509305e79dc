package export

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// ackToken zlib-compresses payload into a token, as EncodeAck does, so
// that tests can hand ParseAck any content.
func ackToken(payload []byte) string {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(payload)
	w.Close()
	return ackPrefix + base64.RawURLEncoding.EncodeToString(z.Bytes())
}

// ackPayload is a payload of sink and one mark of conv, its numbers as given.
func ackPayload(sink, conv string, nums ...uint64) []byte {
	b := appendAckString(nil, sink)
	b = binary.AppendUvarint(b, 1)
	b = appendAckString(b, conv)
	for _, n := range nums {
		b = binary.AppendUvarint(b, n)
	}
	return b
}

func TestAckTokenRoundTrip(t *testing.T) {
	marks := []AckMark{
		{Conversation: "demo", Created: 1744815823058, From: Cursor{}, To: Cursor{Seq: 5}},
		{Conversation: "nothing new", Created: 1, From: Cursor{Seq: 3}, To: Cursor{Seq: 3}},
		{Conversation: "café ☕ " + strings.Repeat("x", 240), Created: 1 << 50,
			From: Cursor{Seq: 1 << 40, Held: 1 << 40}, To: Cursor{Seq: 1<<62 + 7, Held: 1<<62 + 7}},
	}
	c, err := ParseAck(EncodeAck(Ack{"s3", marks}))
	if err != nil {
		t.Fatal(err)
	}
	want := []AckMark{marks[0], marks[2]} // nothing to move of the second
	if c.Sink != "s3" || !reflect.DeepEqual(c.Marks, want) {
		t.Fatalf("parsed %q %+v, want %+v", c.Sink, c.Marks, want)
	}
	if c, err := ParseAck(EncodeAck(Ack{Sink: "default"})); err != nil || c.Sink != "default" || len(c.Marks) != 0 {
		t.Fatalf("a token of an export with nothing new: %+v, %v", c, err)
	}
	if tok := EncodeAck(Ack{"s3", marks}); !regexp.MustCompile(`^ack1\.[A-Za-z0-9_-]+$`).MatchString(tok) {
		t.Fatalf("token %q: want ack1. and base64url, safe unquoted in a shell", tok)
	}
}

// Anything but a token EncodeAck made is an *AckError: cut, changed in any
// one character, or well-formed but holding what no export leaves.
func TestAckTokenRejects(t *testing.T) {
	good := EncodeAck(Ack{"default", []AckMark{{Conversation: "demo", Created: 17, To: Cursor{Seq: 2}}}})
	bad := []string{"", "ack1.", "ack1", "ack2." + good[5:], "nonsense", good + "A", good[:len(good)-1], good + "!", "ack1.!!!!"}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := len(ackPrefix); i < len(good); i++ {
		for _, r := range []byte{alphabet[(strings.IndexByte(alphabet, good[i])+1)%64], alphabet[(strings.IndexByte(alphabet, good[i])+63)%64]} {
			bad = append(bad, good[:i]+string(r)+good[i+1:])
		}
	}
	bad = append(bad,
		ackToken(nil),
		ackToken(ackPayload("", "demo", 17, 0, 0, 2, 0)),             // no sink
		ackToken(ackPayload("s", "a\x00b", 17, 0, 0, 2, 0)),          // no conversation id
		ackToken(ackPayload("s", "", 17, 0, 0, 2, 0)),                // no conversation id
		ackToken(ackPayload("s", "demo", 17, 0, 0, 2, 3)),            // held past the cursor
		ackToken(ackPayload("s", "demo", 17, 5, 0, 2, 0)),            // To behind From
		ackToken(ackPayload("s", "demo", 17, 2, 0, 2, 0)),            // nothing to move
		ackToken(ackPayload("s", "demo", 1<<63, 0, 0, 2, 0)),         // past int64
		ackToken(ackPayload("s", "demo", 17, 0, 0, 2)),               // cut short
		ackToken(append(ackPayload("s", "demo", 17, 0, 0, 2, 0), 0)), // trailing bytes
		ackToken(ackPayload("s\xff", "demo", 17, 0, 0, 2, 0)),        // a sink of invalid UTF-8
	)
	two := ackPayload("s", "demo", 17, 0, 0, 2, 0)
	two[2] = 2 // two marks, the second the first again
	bad = append(bad, ackToken(append(two, ackPayload("", "demo", 17, 0, 0, 2, 0)[2:]...)))
	for _, tok := range bad {
		var bad *AckError
		if _, err := ParseAck(tok); !errors.As(err, &bad) {
			t.Errorf("ParseAck(%q): %v, want an *AckError", tok, err)
		}
	}
}
