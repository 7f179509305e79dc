package transcript

// A fork's body spliced from the stored one: a fork inside the store
// rewrites every record, and decoding, validating and encoding each was
// most of what it spent in Go.

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// AppendForked appends to dst what AppendJSON writes for
// ForkAs(r, id, conv, nil), r being the record body holds in canonical
// form (a stored body: what AppendJSON wrote), without decoding it: the id
// and conversation replaced, aux.forkedFrom set at its sorted place. It
// reports false, dst unchanged, for a body not laid out as AppendJSON lays
// one out, or a copy Validate might refuse (an id that is not a ULID, a
// conversation it refuses, a record near the size limit): decode that one.
// The rest of the record is as it was stored, and was valid then.
func AppendForked(dst, body []byte, id, conv string) ([]byte, bool) {
	if !forkTargetOK(id, conv) {
		return dst, false
	}
	s := forkSplice{b: body}
	if !s.scan() || len(body)+len(s.oldID)+32 > MaxRecordBytes {
		return dst, false
	}
	out := append(dst, `{"id":`...)
	out = AppendString(out, id)
	out = append(out, `,"conversation":`...)
	out = AppendString(out, conv)
	out = append(out, body[s.msg:s.aux]...)
	out, ok := s.appendAux(out)
	if !ok {
		return dst, false
	}
	return out, true
}

// forkTargetOK: Validate takes id and conv as a copy's id and conversation.
func forkTargetOK(id, conv string) bool {
	if len(id) != ulid.EncodedSize {
		return false
	}
	if _, err := ulid.ParseStrict(id); err != nil {
		return false
	}
	return len(conv) <= MaxConversationBytes && strings.IndexByte(conv, 0) < 0 && utf8.ValidString(conv)
}

// forkSplice finds the parts of a canonical body a fork changes.
type forkSplice struct {
	b     []byte
	oldID []byte // the id's text (no escapes)
	msg   int    // where `,"message":` starts
	aux   int    // where `,"aux":` or the metadata's closing brace starts
}

// scan reads the layout: {"id":…,"conversation":…,"message":{…},
// "metadata":{["attribute":[…],]["summaryIds":[…],]"timing":{…}[,"aux":{…}]}}.
func (s *forkSplice) scan() bool {
	b := s.b
	const idKey = `{"id":"`
	if !bytes.HasPrefix(b, []byte(idKey)) {
		return false
	}
	end := plainString(b, len(idKey))
	if end < 0 {
		return false
	}
	s.oldID = b[len(idKey):end]
	i := end + 1
	if !hasAt(b, i, `,"conversation":`) {
		return false
	}
	i, ok := skipString(b, i+len(`,"conversation":`))
	if !ok || !hasAt(b, i, `,"message":{`) {
		return false
	}
	s.msg = i
	if i, ok = skipValue(b, i+len(`,"message":`)); !ok || !hasAt(b, i, `,"metadata":{`) {
		return false
	}
	i += len(`,"metadata":{`)
	for _, k := range []string{`"attribute":[`, `"summaryIds":[`} {
		if hasAt(b, i, k) {
			if i, ok = skipValue(b, i+len(k)-1); !ok || !hasAt(b, i, ",") {
				return false
			}
			i++
		}
	}
	if !hasAt(b, i, `"timing":{`) {
		return false
	}
	if i, ok = skipValue(b, i+len(`"timing":`)); !ok {
		return false
	}
	s.aux = i
	return true
}

// appendAux appends the metadata's aux with forkedFrom set, and the
// closing braces.
func (s *forkSplice) appendAux(dst []byte) ([]byte, bool) {
	b, i := s.b, s.aux
	entry := func(dst []byte) []byte {
		dst = append(dst, `"`+AuxForkedFrom+`":"`...)
		dst = append(dst, s.oldID...)
		return append(dst, '"')
	}
	if len(b)-i == 2 && b[i] == '}' && b[i+1] == '}' {
		dst = append(dst, `,"aux":{`...)
		return append(entry(dst), "}}}"...), true
	}
	if !hasAt(b, i, `,"aux":{"`) { // an empty aux is never written
		return dst, false
	}
	dst = append(dst, `,"aux":{`...)
	i += len(`,"aux":{`)
	placed, n := false, 0
	for {
		ke := plainString(b, i+1) // keys sort as their text: no escapes
		if ke < 0 || !hasAt(b, ke+1, ":") {
			return dst, false
		}
		ve, ok := skipValue(b, ke+2)
		if !ok || ve >= len(b) {
			return dst, false
		}
		key := string(b[i+1 : ke])
		if !placed && key >= AuxForkedFrom {
			if n++; n > 1 {
				dst = append(dst, ',')
			}
			dst, placed = entry(dst), true
		}
		if key != AuxForkedFrom {
			if n++; n > 1 {
				dst = append(dst, ',')
			}
			dst = append(dst, b[i:ve]...)
		}
		i = ve + 1
		if b[ve] == '}' {
			break
		}
		if b[ve] != ',' || !hasAt(b, i, `"`) {
			return dst, false
		}
	}
	if !placed {
		dst = append(entry(append(dst, ',')), '}')
	} else {
		dst = append(dst, '}')
	}
	if len(b)-i != 2 || b[i] != '}' || b[i+1] != '}' {
		return dst, false
	}
	return append(dst, "}}"...), true
}

func hasAt(b []byte, i int, s string) bool {
	return i >= 0 && i <= len(b) && bytes.HasPrefix(b[i:], []byte(s))
}

// plainString is the index of the quote closing the string whose text
// starts at i, or -1 if it holds an escape or has no end.
func plainString(b []byte, i int) int {
	if i > len(b) {
		return -1
	}
	n := bytes.IndexByte(b[i:], '"')
	if n < 0 || bytes.IndexByte(b[i:i+n], '\\') >= 0 {
		return -1
	}
	return i + n
}

// skipString returns the index after the string opening at i.
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for i++; ; {
		n := bytes.IndexByte(b[i:], '"')
		if n < 0 {
			return 0, false
		}
		q := i + n
		esc := 0
		for j := q - 1; j >= i && b[j] == '\\'; j-- {
			esc++
		}
		if esc%2 == 0 {
			return q + 1, true
		}
		i = q + 1
	}
}

// skipValue returns the index after the JSON value starting at i, as
// canonical JSON holds one (no white space).
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
	default: // a number or literal: up to what follows it
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			if isSpace(b[j]) || b[j] == '"' {
				return 0, false
			}
			j++
		}
		return j, j > i
	}
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			var ok bool
			if i, ok = skipString(b, i); !ok {
				return 0, false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		default:
			if isSpace(c) {
				return 0, false
			}
		}
		i++
	}
	return 0, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
