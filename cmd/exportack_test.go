package cmd

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/binary"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/convo-cli/convo/pkg/store"
)

// ackToken zlib-compresses payload into a token, as encodeAck does, so
// that tests can hand parseAck any content.
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
	marks := []store.Mark{
		{Conversation: "demo", Sink: "s3", Created: 1744815823058, From: store.Cursor{}, To: store.Cursor{Seq: 5}},
		{Conversation: "nothing new", Sink: "s3", Created: 1, From: store.Cursor{Seq: 3}, To: store.Cursor{Seq: 3}},
		{Conversation: "café ☕ " + strings.Repeat("x", 240), Sink: "s3", Created: 1 << 50,
			From: store.Cursor{Seq: 1 << 40, Held: 1 << 40}, To: store.Cursor{Seq: 1<<62 + 7, Held: 1<<62 + 7}},
	}
	c, err := parseAck(encodeAck("s3", marks))
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Mark{marks[0], marks[2]} // nothing to move of the second
	if c.sink != "s3" || !reflect.DeepEqual(c.marks, want) {
		t.Fatalf("parsed %q %+v, want %+v", c.sink, c.marks, want)
	}
	if c, err := parseAck(encodeAck("default", nil)); err != nil || c.sink != "default" || len(c.marks) != 0 {
		t.Fatalf("a token of an export with nothing new: %+v, %v", c, err)
	}
	if tok := encodeAck("s3", marks); !regexp.MustCompile(`^ack1\.[A-Za-z0-9_-]+$`).MatchString(tok) {
		t.Fatalf("token %q: want ack1. and base64url, safe unquoted in a shell", tok)
	}
}

// Anything but a token encodeAck made is a usage error: cut, changed in any
// one character, or well-formed but holding what no export leaves.
func TestAckTokenRejects(t *testing.T) {
	good := encodeAck("default", []store.Mark{{Conversation: "demo", Sink: "default", Created: 17, To: store.Cursor{Seq: 2}}})
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
		if _, err := parseAck(tok); exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--commit-cursor") {
			t.Errorf("parseAck(%q): %v, want a usage error", tok, err)
		}
	}
}

// export --ack moves no cursor and prints the command that does; run, it
// moves the cursor once, and an older token after it moves nothing.
func TestExportAckRun(t *testing.T) {
	ctx := context.Background()
	f, out, errOut := testFactory(t, "")
	exportAppend(t, f, "demo", "hello", "hi there")
	s, _ := f.Store(ctx)
	ack := func(args ...string) string {
		t.Helper()
		out.Reset()
		errOut.Reset()
		if err := runExport(t, f, append([]string{"--incremental", "--sink", "up", "--ack"}, args...)...); err != nil {
			t.Fatal(err)
		}
		_, tok, ok := strings.Cut(strings.TrimSpace(errOut.String()), "convo export --commit-cursor ")
		if !ok {
			t.Fatalf("no token on stderr: %q", errOut)
		}
		return tok
	}
	commit := func(tok string, want string) {
		t.Helper()
		out.Reset()
		errOut.Reset()
		if err := runExport(t, f, "--commit-cursor", tok); err != nil || !strings.Contains(errOut.String(), want) {
			t.Fatalf("commit: %v, stderr %q; want %q", err, errOut, want)
		}
		if out.Len() > 0 {
			t.Fatalf("--commit-cursor wrote to stdout: %q", out)
		}
	}
	cursor := func() int64 {
		t.Helper()
		seq, err := s.Cursor(ctx, "demo", "up")
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}

	old := ack("-c", "demo")
	if n := strings.Count(out.String(), "\n"); n != 2 || cursor() != 0 {
		t.Fatalf("--ack sent %d records and moved the cursor to %d; want 2 sent, nothing moved", n, cursor())
	}
	exportAppend(t, f, "demo", "more")
	tok := ack("-c", "demo")
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Fatalf("the second --ack export sent %d records, want all 3 again", n)
	}
	commit(tok, "moved 1 of the 1")
	seq := cursor()
	commit(tok, "moved 0 of the 1")
	commit(old, "moved 0 of the 1")
	if cursor() != seq || seq == 0 {
		t.Fatalf("cursor %d after repeated and stale commits, want %d", cursor(), seq)
	}
	if ack("--all"); out.Len() != 0 {
		t.Fatalf("after the commit an export sent %q", out)
	}
}
