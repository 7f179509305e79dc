package otel

import (
	"bytes"
	"strconv"
)

// peekInput reads, without decoding the record, what a user or system
// record gives a span when no text goes out: its conversation and its
// creation time. It reads canonical JSON only (what the store holds:
// id, conversation, message, metadata in that order, the message of
// these roles holding strings alone, so the first "metadata" and "timing"
// keys after it are the record's); ok is false for anything else, which
// DecodeStoredPick then reads. It checks no more of the JSON than that: the
// bodies it reads are the store's, valid. Decoding every user record cost
// a fifth of an export's time.
func peekInput(b []byte) (conv []byte, created int64, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"id":"`))
	if !ok || !bytes.HasSuffix(b, []byte("}}")) {
		return nil, 0, false
	}
	if _, rest, ok = plainString(rest); !ok {
		return nil, 0, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"conversation":"`)); !ok {
		return nil, 0, false
	}
	var c []byte
	if c, rest, ok = plainString(rest); !ok {
		return nil, 0, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"message":{"role":"`)); !ok {
		return nil, 0, false
	}
	var role []byte
	if role, rest, ok = plainString(rest); !ok || string(role) != "user" && string(role) != "system" {
		return nil, 0, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"contents":[`)); !ok {
		return nil, 0, false
	}
	_, rest, ok = bytes.Cut(rest, []byte(`]},"metadata":{`))
	if !ok {
		return nil, 0, false
	}
	if _, rest, ok = bytes.Cut(rest, []byte(`"timing":{"creation":`)); !ok {
		return nil, 0, false
	}
	n := numberAt(rest)
	created, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || len(rest) == len(n) || rest[len(n)] != ',' && rest[len(n)] != '}' {
		return nil, 0, false
	}
	return c, created, true
}

// plainString reads a JSON string's text up to its closing quote when it
// has no escape; ok is false when it has one.
func plainString(b []byte) (s, rest []byte, ok bool) {
	i := bytes.IndexAny(b, `"\`)
	if i < 0 || b[i] != '"' {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}
